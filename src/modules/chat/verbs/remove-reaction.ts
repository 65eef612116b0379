import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { actingActor } from '../../../core/tenancy/acting-actor.ts';
import { CHAT_ACTING } from '../rules/acting.ts';
import type { ReactionInput } from '../schema.ts';
import { lockMessage } from '../store/message-change.ts';
import type { ChatMessage } from '../store/message-row.ts';
import { afterReaction } from '../store/reaction-change.ts';

/** Removes the actor's reaction; removing one that is not there changes nothing. */
export async function removeReaction(
  ctx: ServiceContext,
  input: Static<typeof ReactionInput>,
): Promise<ChatMessage> {
  return inTenant(ctx, async (tx, emit) => {
    const by = { principal: ctx.principal, named: input.actor };
    const actorId = (await actingActor(tx, ctx.tenantId, by, CHAT_ACTING)).id;
    await lockMessage(ctx, tx, input.roomId, input.messageId, { authorOnly: false });
    const { rowCount } = await tx.query(
      'delete from chat_reactions where message_id = $1 and emoji = $2 and actor_id = $3',
      [input.messageId, input.emoji, actorId],
    );
    return afterReaction(tx, emit, input, rowCount, 'reaction_removed');
  });
}
