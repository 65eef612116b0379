import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { PG_ERROR, pgErrorCode } from '../../../core/db/database.ts';
import { Conflict } from '../../../core/http/errors.ts';
import { newId } from '../../../core/ids.ts';
import type { CreateRoomInput, Room } from '../schema.ts';
import { roomsConfig } from './config.ts';

/**
 * The room and the tenant's room count in one statement: the counter goes up only while under the
 * maximum, and the room is written only when it did.
 */
const INSERT_COUNTED = `
with counted as (
  insert into room_counts (tenant_id, n) values ($1, 1)
  on conflict (tenant_id) do update set n = room_counts.n + 1 where room_counts.n < $6
  returning n
)
insert into rooms (tenant_id, id, name, metadata, created_at, updated_at)
select $1, $2, $3, $4, $5, $5 where exists (select 1 from counted)
returning id`;

/**
 * Three round trips in the tenant's transaction: its event (with the outbox) first, then the room with
 * its count last, so the tenant's counter row stays locked only until the commit that follows.
 */
export async function createRoom(
  ctx: ServiceContext,
  input: Static<typeof CreateRoomInput>,
): Promise<Static<typeof Room>> {
  const id = input.id ?? newId('room');
  const { maxRooms } = await roomsConfig(ctx);
  const at = new Date(ctx.clock.now()).toISOString();
  const room = { id, name: input.name ?? null, metadata: input.metadata ?? {}, createdAt: at, updatedAt: at };
  try {
    return await inTenant(ctx, async (tx, emit) => {
      await emit('room.created', { roomId: room.id, room });
      const { rows } = await tx.query(INSERT_COUNTED, [
        ctx.tenantId,
        id,
        room.name,
        JSON.stringify(room.metadata),
        at,
        maxRooms,
      ]);
      if (rows.length === 0)
        throw new Conflict(`this tenant already has ${maxRooms} rooms, its configured maximum`);
      return room;
    });
  } catch (error) {
    if (pgErrorCode(error) === PG_ERROR.uniqueViolation) throw new Conflict(`room ${id} already exists`);
    throw error;
  }
}
