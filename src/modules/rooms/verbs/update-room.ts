import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { InvalidRequest, NotFound } from '../../../core/http/errors.ts';
import { ROOM_COLUMNS, type RoomRow, toRoom } from '../room-row.ts';
import { METADATA_LIMITS, type Room, type UpdateRoomArguments } from '../schema.ts';

/** Metadata merges: given keys are set, keys given as null are removed, others stay. */
export async function updateRoom(
  ctx: ServiceContext,
  input: Static<typeof UpdateRoomArguments>,
): Promise<Static<typeof Room>> {
  return inTenant(ctx, async (tx, emit) => {
    const { rows: current } = await tx.query<RoomRow>(
      `select ${ROOM_COLUMNS} from rooms where id = $1 for update`,
      [input.roomId],
    );
    const before = current[0];
    if (before === undefined) throw new NotFound('room', input.roomId);
    // A Map, then own properties: a key named `__proto__` (MCP input) is a key like any other.
    const merged = new Map(Object.entries(before.metadata));
    for (const [key, value] of Object.entries(input.metadata ?? {})) {
      if (value === null) merged.delete(key);
      else merged.set(key, value);
    }
    const metadata = Object.fromEntries(merged);
    if (Object.keys(metadata).length > METADATA_LIMITS.keys) {
      throw new InvalidRequest(`metadata would have more than ${METADATA_LIMITS.keys} keys`, [
        {
          field: '/body/metadata',
          message: `at most ${METADATA_LIMITS.keys} keys after the merge`,
          code: 'too_many_keys',
        },
      ]);
    }
    const name = input.name === undefined ? before.name : input.name;
    const { rows } = await tx.query<RoomRow>(
      `update rooms set name = $2, metadata = $3, updated_at = now() where id = $1 returning ${ROOM_COLUMNS}`,
      [input.roomId, name, JSON.stringify(metadata)],
    );
    const row = rows[0];
    if (row === undefined) throw new NotFound('room', input.roomId);
    const room = toRoom(row);
    await emit('room.updated', {
      roomId: room.id,
      room,
      changes: { name: input.name, metadata: input.metadata },
    });
    return room;
  });
}
