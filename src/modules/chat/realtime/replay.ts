import type { RealtimeHost, RealtimeMembership } from '../../../core/realtime/contributions.ts';
import { readChanges } from '../store/change-log.ts';
import { CHAT_STREAM, chatFrame, SentAhead, storedChange } from './changes.ts';

/**
 * Sends a resuming client every change it missed, in change order, page by page from the database,
 * waiting for its socket to drain between pages. Each message is sent as it is now, so several changes of
 * one message while the client was away come as one frame (at the first of them), and an edited or
 * deleted text is never sent again. Reads until a page comes back short: anything committed later reaches
 * the connection live (it subscribed before the first read), so the two overlap and never leave a hole.
 */
export async function replayMissed(
  host: RealtimeHost,
  membership: RealtimeMembership,
  pageSize: number,
): Promise<void> {
  const { connection, roomId } = membership;
  const ctx = host.context(connection);
  const sentAhead = new SentAhead();
  for (;;) {
    const page = await readChanges(ctx, {
      roomId,
      after: membership.position(CHAT_STREAM),
      limit: pageSize,
    });
    for (const stored of page.data) {
      const change = storedChange(stored);
      membership.caughtUp(
        CHAT_STREAM,
        change.changeSeq,
        sentAhead.admit(change) ? chatFrame(roomId, change) : undefined,
      );
    }
    if (!page.hasMore) return;
    if (!(await connection.drained())) return;
  }
}
