import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import { NotFound } from '../../../core/http/errors.ts';
import { ROOM_COLUMNS, type RoomRow, toRoom } from '../room-row.ts';
import type { Room, RoomRef } from '../schema.ts';

export async function getRoom(
  ctx: ServiceContext,
  input: Static<typeof RoomRef>,
): Promise<Static<typeof Room>> {
  const { rows } = await tenantRead<RoomRow>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select ${ROOM_COLUMNS} from rooms where id = $1`,
    [input.roomId],
  );
  const row = rows[0];
  if (row === undefined) throw new NotFound('room', input.roomId);
  return toRoom(row);
}
