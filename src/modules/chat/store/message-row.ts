import type { Static } from 'typebox';
import type { Queryable } from '../../../core/db/database.ts';
import { type ActorType, actorView } from '../../../core/tenancy/actors.ts';
import type { Message } from '../schema.ts';

export type ChatMessage = Static<typeof Message>;

export interface MessageRow {
  id: string;
  room_id: string;
  seq: number | string;
  author_type: ActorType;
  author_external_id: string;
  author_identity_provider: string;
  text: string;
  metadata: Record<string, unknown>;
  client_id: string | null;
  reactions: { emoji: string; count: number }[] | null;
  revision: number;
  created_at: Date | string;
  edited_at: Date | string | null;
  deleted_at: Date | string | null;
}

/**
 * `select <MESSAGE_SELECT> where ...`: a message with its author and reaction counts, as one row. The
 * author's internal id stays in the database: the API names it by its provider-qualified id.
 */
export const MESSAGE_SELECT = `m.id, m.room_id, m.seq, m.text, m.metadata, m.client_id, m.revision,
  m.created_at, m.edited_at, m.deleted_at,
  a.type as author_type, a.external_id as author_external_id, a.identity_provider as author_identity_provider,
  (select jsonb_agg(jsonb_build_object('emoji', r.emoji, 'count', r.n) order by r.first_at, r.emoji)
     from (select emoji, count(*)::int as n, min(created_at) as first_at
             from chat_reactions
            where tenant_id = m.tenant_id and message_id = m.id
            group by emoji) r) as reactions
  from chat_messages m join actors a on a.id = m.author_actor_id`;

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

export function toMessage(row: MessageRow): ChatMessage {
  return {
    id: row.id,
    roomId: row.room_id,
    seq: Number(row.seq),
    author: actorView({
      type: row.author_type,
      externalId: row.author_external_id,
      identityProvider: row.author_identity_provider,
    }),
    text: row.text,
    metadata: row.metadata,
    clientId: row.client_id,
    reactions: row.reactions ?? [],
    revision: row.revision,
    createdAt: new Date(row.created_at).toISOString(),
    editedAt: iso(row.edited_at),
    deletedAt: iso(row.deleted_at),
  };
}

/** One message of a room as it is now, or undefined. */
export async function readMessage(
  tx: Queryable,
  roomId: string,
  messageId: string,
): Promise<ChatMessage | undefined> {
  const { rows } = await tx.query<MessageRow>(`select ${MESSAGE_SELECT} where m.room_id = $1 and m.id = $2`, [
    roomId,
    messageId,
  ]);
  const row = rows[0];
  return row === undefined ? undefined : toMessage(row);
}
