import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { tenantTx } from '../../../core/db/tenant-tx.ts';
import { NotFound } from '../../../core/http/errors.ts';
import type { MessageRef } from '../schema.ts';
import { changedMessage, lockMessage } from '../store/message-change.ts';
import { type ChatMessage, readMessage } from '../store/message-row.ts';

/**
 * Deletes a message's content and keeps a tombstone in its place: the seq stays taken, so history and
 * resume still see an unbroken sequence. Deleting a tombstone again changes nothing.
 */
export async function deleteMessage(
  ctx: ServiceContext,
  input: Static<typeof MessageRef>,
): Promise<ChatMessage> {
  const deleted = await inTenant(ctx, async (tx, emit) => {
    const locked = await lockMessage(ctx, tx, input.roomId, input.messageId, { authorOnly: true });
    if (locked.deleted) return undefined;
    await tx.query(
      `update chat_messages set text = '', metadata = '{}'::jsonb, deleted_at = now()
        where room_id = $1 and id = $2`,
      [input.roomId, input.messageId],
    );
    await tx.query('delete from chat_reactions where message_id = $1', [input.messageId]);
    const { message, changeSeq } = await changedMessage(tx, input.roomId, input.messageId, 'deleted');
    await emit('chat.message.deleted', { roomId: input.roomId, message, changeSeq });
    return message;
  });
  if (deleted !== undefined) return deleted;
  const tombstone = await tenantTx(ctx.db, { tenantId: ctx.tenantId }, (tx) =>
    readMessage(tx, input.roomId, input.messageId),
  );
  if (tombstone === undefined) throw new NotFound('message', input.messageId);
  return tombstone;
}
