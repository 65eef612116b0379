import type { Static } from 'typebox';
import { roomLimit } from '../../../core/auth/principal.ts';
import type { ServiceContext } from '../../../core/context.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import { cursorNumber, decodeCursor, encodeCursor } from '../../../core/http/cursor.ts';
import type { ListRoomsInput, RoomPage } from '../schema.ts';
import { ROOM_COLUMNS, type RoomRow, toRoom } from './room-row.ts';

/** Newest first; metadata filters are ANDed and compare as text (`?metadata.tier=2` matches 2 and "2"). */
export async function listRooms(
  ctx: ServiceContext,
  input: Static<typeof ListRoomsInput>,
): Promise<Static<typeof RoomPage>> {
  const limit = input.limit ?? 50;
  const after = cursorNumber(decodeCursor(input.cursor)?.seq);
  // Only the filters asked for go into the statement, so the plain case is a backward scan of the
  // tenant's (tenant_id, seq) index that stops after limit + 1 rows.
  const params: unknown[] = [limit + 1];
  const where: string[] = [];
  const bind = (value: unknown) => `$${params.push(value)}`;
  if (after !== undefined) where.push(`r.seq < ${bind(after)}::bigint`);
  const onlyRoom = roomLimit(ctx.principal);
  if (onlyRoom !== undefined) where.push(`r.id = ${bind(onlyRoom)}`);
  if (input.metadata !== undefined && Object.keys(input.metadata).length > 0) {
    where.push(`not exists (select 1 from jsonb_each_text(${bind(JSON.stringify(input.metadata))}::jsonb) f
                             where (r.metadata ->> f.key) is distinct from f.value)`);
  }
  const { rows } = await tenantRead<RoomRow>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select ${ROOM_COLUMNS} from rooms r
      ${where.length === 0 ? '' : `where ${where.join(' and ')}`}
      order by r.seq desc limit $1`,
    params,
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map(toRoom),
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor({ seq: String(last.seq) }) : null,
  };
}
