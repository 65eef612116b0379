import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import type { Queryable } from '../../../core/db/database.ts';
import { NotFound } from '../../../core/http/errors.ts';
import { actingActor } from '../../../core/tenancy/acting-actor.ts';
import { CHAT_ACTING } from '../rules/acting.ts';
import type { ReactionInput } from '../schema.ts';
import { changedMessage, type LockedMessage, lockMessage } from './message-change.ts';
import { type ChatMessage, readMessage } from './message-row.ts';

/** Adds or removes the acting actor's reaction row; answers how many rows it changed (0 or 1). */
export type ReactionWrite = (tx: Queryable, actorId: string, locked: LockedMessage) => Promise<number>;

/**
 * A reaction added or removed as the acting actor, with the message locked: the message as it is now,
 * with its `chat.message.updated` event when `write` changed something; unchanged (and no event) otherwise.
 */
export async function changeReaction(
  ctx: ServiceContext,
  input: Static<typeof ReactionInput>,
  change: 'reaction_added' | 'reaction_removed',
  write: ReactionWrite,
): Promise<ChatMessage> {
  return inTenant(ctx, async (tx, emit) => {
    const by = { principal: ctx.principal, named: input.actor };
    const actorId = (await actingActor(tx, ctx.tenantId, by, CHAT_ACTING)).id;
    const locked = await lockMessage(ctx, tx, input.roomId, input.messageId, { authorOnly: false });
    if ((await write(tx, actorId, locked)) === 0) {
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
  });
}
