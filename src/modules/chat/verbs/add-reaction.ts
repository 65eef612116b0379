import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { Conflict } from '../../../core/http/errors.ts';
import { actingActor } from '../../../core/tenancy/acting-actor.ts';
import { CHAT_ACTING } from '../rules/acting.ts';
import type { ReactionInput } from '../schema.ts';
import { lockMessage } from '../store/message-change.ts';
import type { ChatMessage } from '../store/message-row.ts';
import { afterReaction } from '../store/reaction-change.ts';

/** Adds the actor's reaction; adding it again changes nothing (and emits nothing). */
export async function addReaction(
  ctx: ServiceContext,
  input: Static<typeof ReactionInput>,
): Promise<ChatMessage> {
  return inTenant(ctx, async (tx, emit) => {
    const by = { principal: ctx.principal, named: input.actor };
    const actorId = (await actingActor(tx, ctx.tenantId, by, CHAT_ACTING)).id;
    const locked = await lockMessage(ctx, tx, input.roomId, input.messageId, { authorOnly: false });
    if (locked.deleted) throw new Conflict(`message ${input.messageId} was deleted`);
    const { rowCount } = await tx.query(
      `insert into chat_reactions (tenant_id, message_id, emoji, actor_id) values ($1, $2, $3, $4)
       on conflict do nothing`,
      [ctx.tenantId, input.messageId, input.emoji, actorId],
    );
    return afterReaction(tx, emit, input, rowCount, 'reaction_added');
  });
}
