import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { Conflict, NotFound } from '../../../core/http/errors.ts';
import type { ReactionInput } from '../schema.ts';
import { actingActor } from './author.ts';
import { changedMessage, lockMessage } from './message-change.ts';
import { type ChatMessage, readMessage } from './message-row.ts';
import { assertRoomAllowed } from './room-access.ts';

/** Adds the actor's reaction; adding it again changes nothing (and emits nothing). */
export async function addReaction(
  ctx: ServiceContext,
  input: Static<typeof ReactionInput>,
): Promise<ChatMessage> {
  assertRoomAllowed(ctx, input.roomId);
  return inTenant(ctx, async (tx, emit) => {
    const actorId = (await actingActor(ctx, tx, input.actor)).id;
    const locked = await lockMessage(ctx, tx, input.roomId, input.messageId, { authorOnly: false });
    if (locked.deleted) throw new Conflict(`message ${input.messageId} was deleted`);
    const { rowCount } = await tx.query(
      `insert into chat_reactions (tenant_id, message_id, emoji, actor_id) values ($1, $2, $3, $4)
       on conflict do nothing`,
      [ctx.tenantId, input.messageId, input.emoji, actorId],
    );
    if (rowCount === 0) {
      const unchanged = await readMessage(tx, input.roomId, input.messageId);
      if (unchanged === undefined) throw new NotFound('message', input.messageId);
      return unchanged;
    }
    const { message, changeSeq } = await changedMessage(tx, input.roomId, input.messageId, 'updated');
    await emit('chat.message.updated', {
      roomId: input.roomId,
      message,
      changeSeq,
      change: 'reaction_added',
      emoji: input.emoji,
    });
    return message;
  });
}
