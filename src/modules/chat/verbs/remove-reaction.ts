import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import type { ReactionInput } from '../schema.ts';
import type { ChatMessage } from '../store/message-row.ts';
import { changeReaction } from '../store/reaction-change.ts';

/** Removes the actor's reaction; removing one that is not there changes nothing. */
export async function removeReaction(
  ctx: ServiceContext,
  input: Static<typeof ReactionInput>,
): Promise<ChatMessage> {
  return changeReaction(ctx, input, 'reaction_removed', async (tx, actorId) => {
    const { rowCount } = await tx.query(
      'delete from chat_reactions where message_id = $1 and emoji = $2 and actor_id = $3',
      [input.messageId, input.emoji, actorId],
    );
    return rowCount;
  });
}
