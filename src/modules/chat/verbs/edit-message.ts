import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { Conflict } from '../../../core/http/errors.ts';
import { chatConfig } from '../rules/config.ts';
import { checkText } from '../rules/moderation.ts';
import type { EditMessageInput } from '../schema.ts';
import { changedMessage, lockMessage } from '../store/message-change.ts';
import type { ChatMessage } from '../store/message-row.ts';

/** Replaces the text and/or metadata of a message; its author (session) or the tenant (API key) may. */
export async function editMessage(
  ctx: ServiceContext,
  input: Static<typeof EditMessageInput>,
): Promise<ChatMessage> {
  if (input.text !== undefined) checkText(input.text, await chatConfig(ctx));
  return inTenant(ctx, async (tx, emit) => {
    const locked = await lockMessage(ctx, tx, input.roomId, input.messageId, { authorOnly: true });
    if (locked.deleted) throw new Conflict(`message ${input.messageId} was deleted`);
    await tx.query(
      `update chat_messages
          set text = coalesce($3, text), metadata = coalesce($4::jsonb, metadata), edited_at = now()
        where room_id = $1 and id = $2`,
      [
        input.roomId,
        input.messageId,
        input.text ?? null,
        input.metadata === undefined ? null : JSON.stringify(input.metadata),
      ],
    );
    const { message, changeSeq } = await changedMessage(tx, input.roomId, input.messageId, 'updated');
    await emit('chat.message.updated', { roomId: input.roomId, message, changeSeq, change: 'edited' });
    return message;
  });
}
