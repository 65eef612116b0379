import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import type { ReactionInput } from '../schema.ts';
import { actingActor } from './author.ts';
import { lockMessage } from './message-change.ts';
import type { ChatMessage } from './message-row.ts';
import { afterReaction } from './reaction-change.ts';

/** Removes the actor's reaction; removing one that is not there changes nothing. */
export async function removeReaction(
  ctx: ServiceContext,
  input: Static<typeof ReactionInput>,
): Promise<ChatMessage> {
  return inTenant(ctx, async (tx, emit) => {
    const actorId = (await actingActor(ctx, tx, input.actor)).id;
    await lockMessage(ctx, tx, input.roomId, input.messageId, { authorOnly: false });
    const { rowCount } = await tx.query(
      'delete from chat_reactions where message_id = $1 and emoji = $2 and actor_id = $3',
      [input.messageId, input.emoji, actorId],
    );
    return afterReaction(tx, emit, input, rowCount, 'reaction_removed');
  });
}
