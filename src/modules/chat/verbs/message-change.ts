import type { ServiceContext } from '../../../core/context.ts';
import type { Queryable } from '../../../core/db/database.ts';
import { Forbidden, NotFound } from '../../../core/http/errors.ts';
import { type ChatMessage, readMessage } from './message-row.ts';

export interface LockedMessage {
  authorActorId: string;
  deleted: boolean;
}

/**
 * Locks a message for a change (edits, deletions and reactions of one message take turns, so `revision`
 * grows by one per change). `authorOnly`: a session token may change only its own actor's messages; an
 * API key, acting for the tenant, may change any.
 */
export async function lockMessage(
  ctx: ServiceContext,
  tx: Queryable,
  roomId: string,
  messageId: string,
  options: { authorOnly: boolean },
): Promise<LockedMessage> {
  const { rows } = await tx.query<{ author_actor_id: string; deleted_at: Date | null }>(
    `select author_actor_id::text as author_actor_id, deleted_at from chat_messages
      where room_id = $1 and id = $2 for update`,
    [roomId, messageId],
  );
  const row = rows[0];
  if (row === undefined) throw new NotFound('message', messageId);
  const actor = ctx.principal?.actor;
  if (options.authorOnly && actor !== undefined && actor.id !== row.author_actor_id) {
    throw new Forbidden('only the author can change this message');
  }
  return { authorActorId: row.author_actor_id, deleted: row.deleted_at !== null };
}

/** Bumps the revision and reads the message as it is now, for the reply and the event. */
export async function changedMessage(tx: Queryable, roomId: string, messageId: string): Promise<ChatMessage> {
  await tx.query('update chat_messages set revision = revision + 1 where room_id = $1 and id = $2', [
    roomId,
    messageId,
  ]);
  const message = await readMessage(tx, roomId, messageId);
  if (message === undefined) throw new NotFound('message', messageId);
  return message;
}
