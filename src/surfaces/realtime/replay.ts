import { readPage } from '../../modules/chat/verbs/list-messages.ts';
import type { Connection } from './connection.ts';
import { encode } from './frames.ts';
import type { Gateway } from './gateway.ts';
import type { RoomMembership } from './membership.ts';

/**
 * Sends a resuming client what it missed, page by page from the database, waiting for its socket to drain
 * between pages. Reads until a page comes back short: anything committed later reaches the connection
 * live (it subscribed before the first read), so the two overlap and never leave a hole.
 */
export async function replayMissed(
  gateway: Gateway,
  connection: Connection,
  membership: RoomMembership,
): Promise<void> {
  const ctx = gateway.context(connection);
  const room = membership.roomId;
  for (;;) {
    const page = await readPage(ctx, {
      roomId: room,
      after: membership.lastSeq,
      limit: gateway.limits.replayPageSize,
    });
    for (const message of page.data) {
      membership.sendCaughtUp(message.seq, encode({ type: 'chat.message', room, message }));
    }
    if (!page.hasMore) return;
    if (!(await connection.drained())) return;
  }
}
