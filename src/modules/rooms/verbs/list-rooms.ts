import type { Static } from 'typebox';
import { roomLimit } from '../../../core/auth/principal.ts';
import type { ServiceContext } from '../../../core/context.ts';
import { tenantTx } from '../../../core/db/tenant-tx.ts';
import { decodeCursor, encodeCursor } from '../../../core/http/cursor.ts';
import { InvalidRequest } from '../../../core/http/errors.ts';
import type { ListRoomsInput, RoomPage } from '../schema.ts';
import { ROOM_COLUMNS, type RoomRow, toRoom } from './room-row.ts';

/** Newest first; metadata filters are ANDed and compare as text (`?metadata.tier=2` matches 2 and "2"). */
export async function listRooms(
  ctx: ServiceContext,
  input: Static<typeof ListRoomsInput>,
): Promise<Static<typeof RoomPage>> {
  const limit = input.limit ?? 50;
  const cursor = decodeCursor(input.cursor);
  const after = cursor?.seq;
  if (after !== undefined && !/^\d+$/.test(after)) {
    throw new InvalidRequest('the cursor is not one this API issued', [
      { field: '/querystring/cursor', message: 'is not a valid cursor', code: 'invalid_cursor' },
    ]);
  }
  const { rows } = await tenantTx(ctx.db, { tenantId: ctx.tenantId }, (tx) =>
    tx.query<RoomRow>(
      `select ${ROOM_COLUMNS} from rooms r
        where ($1::bigint is null or r.seq < $1)
          and ($2::text is null or r.id = $2)
          and not exists (select 1 from jsonb_each_text($3::jsonb) f
                           where (r.metadata ->> f.key) is distinct from f.value)
        order by r.seq desc limit $4`,
      [after ?? null, roomLimit(ctx.principal) ?? null, JSON.stringify(input.metadata ?? {}), limit + 1],
    ),
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map(toRoom),
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor({ seq: String(last.seq) }) : null,
  };
}
