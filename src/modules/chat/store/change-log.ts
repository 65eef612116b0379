import type { ServiceContext } from '../../../core/context.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import type { ChangeKind } from './message-change.ts';
import { type ChatMessage, MESSAGE_SELECT, type MessageRow, toMessage } from './message-row.ts';

/**
 * One change of a room's chat: its number, what it did, the revision it gave the message, and the
 * message as it is now (its revision may be higher: later changes are already in it).
 */
export interface StoredChange {
  changeSeq: number;
  kind: ChangeKind;
  revision: number;
  message: ChatMessage;
}

interface ChangeRow extends MessageRow {
  change_seq: number | string;
  change_kind: ChangeKind;
  change_revision: number;
}

/**
 * The room's changes after `after`, oldest first, at most `limit`; `hasMore` when more follow. For the
 * realtime gateway, which knows the room exists. Changes are numbered without gaps in commit order, so a
 * read sees every change up to the newest it returns.
 */
export async function readChanges(
  ctx: ServiceContext,
  input: { roomId: string; after: number; limit: number },
): Promise<{ data: StoredChange[]; hasMore: boolean }> {
  const { rows } = await tenantRead<ChangeRow>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select c.change_seq, c.kind as change_kind, c.revision as change_revision, ${MESSAGE_SELECT}
         join chat_changes c on c.tenant_id = m.tenant_id and c.message_id = m.id
        where c.room_id = $1 and c.change_seq > $2
        order by c.change_seq limit $3`,
    [input.roomId, input.after, input.limit + 1],
  );
  const data = rows.slice(0, input.limit).map((row) => ({
    changeSeq: Number(row.change_seq),
    kind: row.change_kind,
    revision: row.change_revision,
    message: toMessage(row),
  }));
  return { data, hasMore: rows.length > input.limit };
}
