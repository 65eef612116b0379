import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { NotFound } from '../../../core/http/errors.ts';
import type { ReactionInput } from '../schema.ts';
import { actingActor } from './author.ts';
import { changedMessage, lockMessage } from './message-change.ts';
import { type ChatMessage, readMessage } from './message-row.ts';
import { assertRoomAllowed } from './room-access.ts';

/** Removes the actor's reaction; removing one that is not there changes nothing. */
export async function removeReaction(
  ctx: ServiceContext,
  input: Static<typeof ReactionInput>,
): Promise<ChatMessage> {
  assertRoomAllowed(ctx, input.roomId);
  return inTenant(ctx, async (tx, emit) => {
    const actorId = (await actingActor(ctx, tx, input.actor)).id;
    await lockMessage(ctx, tx, input.roomId, input.messageId, { authorOnly: false });
    const { rowCount } = await tx.query(
      'delete from chat_reactions where message_id = $1 and emoji = $2 and actor_id = $3',
      [input.messageId, input.emoji, actorId],
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
      change: 'reaction_removed',
      emoji: input.emoji,
    });
    return message;
  });
}
