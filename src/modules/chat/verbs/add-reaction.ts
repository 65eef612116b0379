import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { Conflict } from '../../../core/http/errors.ts';
import type { ReactionInput } from '../schema.ts';
import { actingActor } from './author.ts';
import { lockMessage } from './message-change.ts';
import type { ChatMessage } from './message-row.ts';
import { afterReaction } from './reaction-change.ts';

/** Adds the actor's reaction; adding it again changes nothing (and emits nothing). */
export async function addReaction(
  ctx: ServiceContext,
  input: Static<typeof ReactionInput>,
): Promise<ChatMessage> {
  return inTenant(ctx, async (tx, emit) => {
    const actorId = (await actingActor(ctx, tx, input.actor)).id;
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
