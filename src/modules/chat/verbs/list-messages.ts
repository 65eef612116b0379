import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import { assertRoomExists } from '../../rooms/port.ts';
import type { ListMessagesInput, MessagePage } from '../schema.ts';
import { MESSAGE_SELECT, type MessageRow, toMessage } from './message-row.ts';

/**
 * A page of a room's messages, oldest first, deleted ones as tombstones (so seq numbers have no holes).
 * With `after`: the next messages past it (reading forward, e.g. catching up). Otherwise: the newest ones
 * below `before` (or the newest of all), reading back in history.
 */
export async function listMessages(
  ctx: ServiceContext,
  input: Static<typeof ListMessagesInput>,
): Promise<Static<typeof MessagePage>> {
  await assertRoomExists(ctx, input.roomId);
  return readPage(ctx, input);
}

/** The page without the existence check: for callers that know the room exists (the realtime gateway). */
export async function readPage(
  ctx: ServiceContext,
  input: Static<typeof ListMessagesInput>,
): Promise<Static<typeof MessagePage>> {
  const limit = input.limit ?? 50;
  const forward = input.after !== undefined;
  const { rows } = await tenantRead<MessageRow>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select ${MESSAGE_SELECT}
        where m.room_id = $1
          and ($2::bigint is null or m.seq > $2)
          and ($3::bigint is null or m.seq < $3)
        order by m.seq ${forward ? 'asc' : 'desc'} limit $4`,
    [input.roomId, input.after ?? null, input.before ?? null, limit + 1],
  );
  const page = rows.slice(0, limit).map(toMessage);
  if (!forward) page.reverse();
  return { data: page, hasMore: rows.length > limit };
}
