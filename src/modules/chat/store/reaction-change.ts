import type { Static } from 'typebox';
import type { Emit } from '../../../core/context.ts';
import type { Queryable } from '../../../core/db/database.ts';
import { NotFound } from '../../../core/http/errors.ts';
import type { ReactionInput } from '../schema.ts';
import { changedMessage } from './message-change.ts';
import { type ChatMessage, readMessage } from './message-row.ts';

/**
 * After a reaction was added or removed (`rows` changed): the message as it is now, with its
 * `chat.message.updated` event when something changed; unchanged (and no event) otherwise.
 */
export async function afterReaction(
  tx: Queryable,
  emit: Emit,
  input: Static<typeof ReactionInput>,
  rows: number,
  change: 'reaction_added' | 'reaction_removed',
): Promise<ChatMessage> {
  if (rows === 0) {
    const unchanged = await readMessage(tx, input.roomId, input.messageId);
    if (unchanged === undefined) throw new NotFound('message', input.messageId);
    return unchanged;
  }
  const { message, changeSeq } = await changedMessage(tx, input.roomId, input.messageId, 'updated');
  await emit('chat.message.updated', {
    roomId: input.roomId,
    message,
    changeSeq,
    change,
    emoji: input.emoji,
  });
  return message;
}
