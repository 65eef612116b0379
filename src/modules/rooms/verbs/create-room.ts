import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { PG_ERROR, pgErrorCode } from '../../../core/db/database.ts';
import { Conflict } from '../../../core/http/errors.ts';
import { newId } from '../../../core/ids.ts';
import type { CreateRoomInput, Room } from '../schema.ts';
import { roomsConfig } from './config.ts';
import { ROOM_COLUMNS, type RoomRow, toRoom } from './room-row.ts';

export async function createRoom(
  ctx: ServiceContext,
  input: Static<typeof CreateRoomInput>,
): Promise<Static<typeof Room>> {
  const id = input.id ?? newId('room');
  const { maxRooms } = await roomsConfig(ctx);
  try {
    return await inTenant(ctx, async (tx, emit) => {
      const { rows } = await tx.query<RoomRow>(
        `insert into rooms (tenant_id, id, name, metadata) values ($1, $2, $3, $4) returning ${ROOM_COLUMNS}`,
        [ctx.tenantId, id, input.name ?? null, JSON.stringify(input.metadata ?? {})],
      );
      const row = rows[0];
      if (row === undefined) throw new Error('room insert returned nothing');
      const room = toRoom(row);
      await emit('room.created', { roomId: room.id, room });
      // Last, so the tenant's counter row stays locked only until the commit that follows.
      const { rows: counted } = await tx.query<{ n: number }>(
        `insert into room_counts (tenant_id, n) values ($1, 1)
         on conflict (tenant_id) do update set n = room_counts.n + 1 where room_counts.n < $2
         returning n`,
        [ctx.tenantId, maxRooms],
      );
      if (counted.length === 0) {
        throw new Conflict(`this tenant already has ${maxRooms} rooms, its configured maximum`);
      }
      return room;
    });
  } catch (error) {
    if (pgErrorCode(error) === PG_ERROR.uniqueViolation) throw new Conflict(`room ${id} already exists`);
    throw error;
  }
}
