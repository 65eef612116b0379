import { actorOf } from '../../../core/auth/principal.ts';
import type { ServiceContext } from '../../../core/context.ts';
import type { Queryable } from '../../../core/db/database.ts';
import { Forbidden, NotFound } from '../../../core/http/errors.ts';
import { type ChatMessage, readMessage } from './message-row.ts';

export interface LockedMessage {
  authorActorId: string;
  deleted: boolean;
}

/** What a change did to a message: `created`, or `updated` (edit, reaction) and `deleted` afterwards. */
export type ChangeKind = 'created' | 'updated' | 'deleted';

/** A message as a change left it, with that change's number in the room (see `chat_changes`). */
export interface MessageChange {
  message: ChatMessage;
  changeSeq: number;
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
  const actor = actorOf(ctx.principal);
  if (options.authorOnly && actor !== undefined && actor.id !== row.author_actor_id) {
    throw new Forbidden('only the author can change this message');
  }
  return { authorActorId: row.author_actor_id, deleted: row.deleted_at !== null };
}

/**
 * Bumps the revision, takes the room's next change number (its counter row stays locked until commit, so
 * changes are numbered in commit order) and records the change; then reads the message as it is now, for
 * the reply and the event. Call it last in the transaction: the room's changes wait for the lock.
 */
export async function changedMessage(
  tx: Queryable,
  roomId: string,
  messageId: string,
  kind: Exclude<ChangeKind, 'created'>,
): Promise<MessageChange> {
  const { rows } = await tx.query<{ change_seq: number | string }>(
    `with bumped as (
       update chat_messages set revision = revision + 1 where room_id = $1 and id = $2
       returning tenant_id, room_id, id, revision),
     counter as (
       update chat_room_seq s set last_change = s.last_change + 1
         from bumped where s.tenant_id = bumped.tenant_id and s.room_id = bumped.room_id
       returning s.last_change)
     insert into chat_changes (tenant_id, room_id, change_seq, message_id, revision, kind)
     select bumped.tenant_id, bumped.room_id, counter.last_change, bumped.id, bumped.revision, $3
       from bumped, counter
     returning change_seq`,
    [roomId, messageId, kind],
  );
  const message = await readMessage(tx, roomId, messageId);
  const row = rows[0];
  if (message === undefined || row === undefined) throw new NotFound('message', messageId);
  return { message, changeSeq: Number(row.change_seq) };
}
