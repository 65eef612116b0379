import { readChanges } from '../../modules/chat/verbs/list-changes.ts';
import { chatFrame, SentAhead, storedChange } from './chat-change.ts';
import type { Connection } from './connection.ts';
import type { Gateway } from './gateway.ts';
import type { RoomMembership } from './membership.ts';

/**
 * Sends a resuming client every change it missed, in change order, page by page from the database,
 * waiting for its socket to drain between pages. Each message is sent as it is now, so several changes of
 * one message while the client was away come as one frame (at the first of them), and an edited or
 * deleted text is never sent again. Reads until a page comes back short: anything committed later reaches
 * the connection live (it subscribed before the first read), so the two overlap and never leave a hole.
 */
export async function replayMissed(
  gateway: Gateway,
  connection: Connection,
  membership: RoomMembership,
): Promise<void> {
  const ctx = gateway.context(connection);
  const room = membership.roomId;
  const sentAhead = new SentAhead();
  for (;;) {
    const page = await readChanges(ctx, {
      roomId: room,
      after: membership.lastChange,
      limit: gateway.limits.replayPageSize,
    });
    for (const stored of page.data) {
      const change = storedChange(stored);
      membership.caughtUp(change.changeSeq, sentAhead.admit(change) ? chatFrame(room, change) : undefined);
    }
    if (!page.hasMore) return;
    if (!(await connection.drained())) return;
  }
}
