import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import { cursorNumber, decodeCursor, encodeCursor } from '../../../core/http/cursor.ts';
import { DEFAULT_PAGE_LIMIT } from '../../../core/http/pagination.ts';
import { assertRoomExists } from '../../rooms/port.ts';
import type { ListMessagesInput, MessagePage } from '../schema.ts';
import { MESSAGE_SELECT, type MessageRow, toMessage } from '../store/message-row.ts';

type Input = Static<typeof ListMessagesInput>;

/**
 * Where a page starts. Reading back (the default): below `before`, or the previous page's lowest seq.
 * Reading forward (`after`, or a cursor that did): past `after`, or the previous page's highest seq. The
 * other bound a request gave (`before` while reading forward) holds for every page.
 */
function pageBounds(input: Input): {
  forward: boolean;
  after?: number | undefined;
  before?: number | undefined;
} {
  const cursor = decodeCursor(input.cursor);
  if (cursor === undefined)
    return { forward: input.after !== undefined, after: input.after, before: input.before };
  const seq = cursorNumber(cursor.seq);
  return cursor.dir === 'after'
    ? { forward: true, after: seq, before: input.before }
    : { forward: false, after: input.after, before: seq };
}

/**
 * A page of a room's messages, oldest first within the page, deleted ones as tombstones (so seq numbers
 * have no holes). By default the newest page, then older ones through `nextCursor`. With `after`: the
 * messages past it, then newer ones through `nextCursor` (reading forward, e.g. catching up).
 */
export async function listMessages(ctx: ServiceContext, input: Input): Promise<Static<typeof MessagePage>> {
  await assertRoomExists(ctx, input.roomId);
  const limit = input.limit ?? DEFAULT_PAGE_LIMIT;
  const { forward, after, before } = pageBounds(input);
  const { rows } = await tenantRead<MessageRow>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select ${MESSAGE_SELECT}
        where m.room_id = $1
          and ($2::bigint is null or m.seq > $2)
          and ($3::bigint is null or m.seq < $3)
        order by m.seq ${forward ? 'asc' : 'desc'} limit $4`,
    [input.roomId, after ?? null, before ?? null, limit + 1],
  );
  const page = rows.slice(0, limit).map(toMessage);
  const edge = page.at(-1)?.seq;
  const nextCursor =
    rows.length > limit && edge !== undefined
      ? encodeCursor({ dir: forward ? 'after' : 'before', seq: String(edge) })
      : null;
  if (!forward) page.reverse();
  return { data: page, nextCursor };
}
