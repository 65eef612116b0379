import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { Conflict } from '../../../core/http/errors.ts';
import type { ReactionInput } from '../schema.ts';
import type { ChatMessage } from '../store/message-row.ts';
import { changeReaction } from '../store/reaction-change.ts';

/** Adds the actor's reaction; adding it again changes nothing (and emits nothing). */
export async function addReaction(
  ctx: ServiceContext,
  input: Static<typeof ReactionInput>,
): Promise<ChatMessage> {
  return changeReaction(ctx, input, 'reaction_added', async (tx, actorId, locked) => {
    if (locked.deleted) throw new Conflict(`message ${input.messageId} was deleted`);
    const { rowCount } = await tx.query(
      `insert into chat_reactions (tenant_id, message_id, emoji, actor_id) values ($1, $2, $3, $4)
       on conflict do nothing`,
      [ctx.tenantId, input.messageId, input.emoji, actorId],
    );
    return rowCount;
  });
}
