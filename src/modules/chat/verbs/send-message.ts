import type { Static } from 'typebox';
import { type ActorRef, actorOf } from '../../../core/auth/principal.ts';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { PG_ERROR, pgErrorCode, type Queryable } from '../../../core/db/database.ts';
import type { GroupWriter } from '../../../core/db/group-commit.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import { NotFound } from '../../../core/http/errors.ts';
import {
  assignNamedActors,
  namedActorParams,
  namedActorsCte,
  namedActorsOf,
  sessionOrNamedActor,
} from '../../../core/tenancy/acting-actor.ts';
import { actorView } from '../../../core/tenancy/actors.ts';
import { newId } from '../ids.ts';
import { CHAT_ACTING } from '../rules/acting.ts';
import { chatConfig } from '../rules/config.ts';
import { checkText } from '../rules/moderation.ts';
import type { SendMessageInput } from '../schema.ts';
import { type ChatMessage, MESSAGE_SELECT, type MessageRow, toMessage } from '../store/message-row.ts';

export type SendMessage = Static<typeof SendMessageInput>;

interface QueuedSend {
  ctx: ServiceContext;
  input: SendMessage;
}

/** Sends to one room are group-committed; see `sendMessage`. */
const SEND_WRITER: GroupWriter<QueuedSend, ChatMessage> = {
  writeGroup: (group) => writeGroup(group),
  writeOne,
  // A constraint one message broke (its clientId was used before, the room is gone) rolled the whole group
  // back: each is then written on its own, so only that one fails.
  isolates: isConstraintViolation,
};

/**
 * Stores a message as the next of its room. Sends to one room go through the app's group-commit queue:
 * while one transaction holds the room's counter row, later sends wait, and the next transaction writes
 * all of them with consecutive numbers in arrival order.
 */
export async function sendMessage(ctx: ServiceContext, input: SendMessage): Promise<ChatMessage> {
  // Everything that can reject one message without the database is checked before it joins a group.
  sessionOrNamedActor(ctx.principal, input.actor, CHAT_ACTING);
  checkText(input.text, await chatConfig(ctx));
  return ctx.groupCommit
    .queue('chat.send', SEND_WRITER)
    .submit(`${ctx.tenantId}/${input.roomId}`, { ctx, input });
}

function isConstraintViolation(error: unknown): boolean {
  return pgErrorCode(error)?.startsWith('23') === true;
}

async function writeOne(pending: QueuedSend): Promise<ChatMessage> {
  const { ctx, input } = pending;
  try {
    const [message] = await writeGroup([pending]);
    if (message === undefined) throw new Error('message insert returned nothing');
    return message;
  } catch (error) {
    const code = pgErrorCode(error);
    if (code === PG_ERROR.foreignKeyViolation) throw new NotFound('room', input.roomId);
    if (code === PG_ERROR.uniqueViolation && input.clientId !== undefined) {
      const first = await sentBefore(ctx, input);
      if (first !== undefined) return first;
    }
    throw error;
  }
}

/**
 * Takes the room's next numbers for every message of the group, stores them and records their creation in
 * one statement, then writes their events in one more: two round trips while the counter row is locked.
 * One message binds plain values; several bind arrays (unnest), which costs more to plan.
 */
function insertGroupSql(many: boolean): string {
  const batch = many
    ? `select * from unnest($3::text[], $4::uuid[], $5::text[], $6::jsonb[], $7::text[]) with ordinality
         as b(id, author_actor_id, text, metadata, client_id, n)`
    : 'select $3::text as id, $4::uuid as author_actor_id, $5::text as text, $6::jsonb as metadata, $7::text as client_id, 1 as n';
  return `
with batch as (${batch}),
counter as (
  insert into chat_room_seq as s (tenant_id, room_id, last_seq, last_change)
  values ($1, $2, $8, $8)
  on conflict (tenant_id, room_id)
  do update set last_seq = s.last_seq + excluded.last_seq, last_change = s.last_change + excluded.last_change
  returning last_seq, last_change
),
message as (
  insert into chat_messages
    (tenant_id, id, room_id, seq, created_change, author_actor_id, text, metadata, client_id)
  select $1, b.id, $2, c.last_seq - $8 + b.n, c.last_change - $8 + b.n, b.author_actor_id, b.text, b.metadata,
         b.client_id
    from batch b cross join counter c
  returning id, seq, created_change, created_at
),
logged as (
  insert into chat_changes (tenant_id, room_id, change_seq, message_id, revision, kind)
  select $1, $2, m.created_change, m.id, 0, 'created' from message m
)
select id, seq, created_change, created_at from message order by seq`;
}
const INSERT_ONE = insertGroupSql(false);
const INSERT_GROUP = insertGroupSql(true);

/** Arrays for the unnest form, their only entries for the plain one. */
function columnsOrValues(many: boolean, columns: readonly unknown[][]): unknown[] {
  return many ? [...columns] : columns.map((column) => column[0]);
}

/** Who each send of a group is from: sessions as themselves, the actors API keys name in one statement. */
async function authorsOf(tx: Queryable, tenantId: string, group: readonly QueuedSend[]): Promise<ActorRef[]> {
  const items = group.map((p) => ({ principal: p.ctx.principal, named: p.input.actor }));
  const { own, named } = namedActorsOf(items, CHAT_ACTING);
  const found =
    named.length === 0
      ? []
      : (
          await tx.query<ActorRef>(`with ${namedActorsCte(1, 2)} select * from named_actors`, [
            tenantId,
            ...namedActorParams(named),
          ])
        ).rows;
  return assignNamedActors(tx, items, own, found);
}

/** One transaction for a group of sends to one room of one tenant (in `ctx` of the first). */
async function writeGroup(group: readonly QueuedSend[]): Promise<ChatMessage[]> {
  const first = group[0];
  if (first === undefined) return [];
  const { ctx } = first;
  const roomId = first.input.roomId;
  return inTenant(ctx, async (tx, _emit, emitEach) => {
    const authors = await authorsOf(tx, ctx.tenantId, group);
    const now = ctx.clock.now();
    const ids = group.map(() => newId('message', now));
    const { rows } = await tx.query<{
      id: string;
      seq: number | string;
      created_change: number | string;
      created_at: Date | string;
    }>(group.length > 1 ? INSERT_GROUP : INSERT_ONE, [
      ctx.tenantId,
      roomId,
      ...columnsOrValues(group.length > 1, [
        ids,
        authors.map((a) => a.id),
        group.map((p) => p.input.text),
        group.map((p) => JSON.stringify(p.input.metadata ?? {})),
        group.map((p) => p.input.clientId ?? null),
      ]),
      group.length,
    ]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    // Built from what was just written rather than read back: sending is the hot path.
    const messages = group.map((p, i): { message: ChatMessage; changeSeq: number } => {
      const row = byId.get(ids[i] ?? '');
      const author = authors[i];
      if (row === undefined || author === undefined) throw new Error('message insert returned nothing');
      return {
        changeSeq: Number(row.created_change),
        message: {
          id: row.id,
          roomId,
          seq: Number(row.seq),
          author: actorView(author),
          text: p.input.text,
          metadata: p.input.metadata ?? {},
          clientId: p.input.clientId ?? null,
          reactions: [],
          revision: 0,
          createdAt: new Date(row.created_at).toISOString(),
          editedAt: null,
          deletedAt: null,
        },
      };
    });
    await emitEach(
      messages.map(({ message, changeSeq }, i) => ({
        by: group[i]?.ctx ?? ctx,
        type: 'chat.message.created',
        data: { roomId, message, changeSeq },
      })),
    );
    return messages.map((m) => m.message);
  });
}

/** Messages a send answered with because they were sent before with its clientId (not posted again). */
const retried = new WeakSet<ChatMessage>();

/** Whether `sendMessage` answered with a message sent before (a retry), which makes no new change. */
export function isRetry(message: ChatMessage): boolean {
  return retried.has(message);
}

/** The message this author already sent with this clientId: a retry must not post twice. */
async function sentBefore(ctx: ServiceContext, input: SendMessage): Promise<ChatMessage | undefined> {
  const externalId = actorOf(ctx.principal)?.externalId ?? input.actor?.id;
  const { rows } = await tenantRead<MessageRow>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select ${MESSAGE_SELECT} where m.room_id = $1 and m.client_id = $2 and a.external_id = $3`,
    [input.roomId, input.clientId, externalId],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  const message = toMessage(row);
  retried.add(message);
  return message;
}
