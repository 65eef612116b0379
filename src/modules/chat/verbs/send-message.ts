import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { PG_ERROR, pgErrorCode } from '../../../core/db/database.ts';
import { tenantTx } from '../../../core/db/tenant-tx.ts';
import { NotFound } from '../../../core/http/errors.ts';
import { newId } from '../../../core/ids.ts';
import type { SendMessageInput } from '../schema.ts';
import { actingActor } from './author.ts';
import { chatConfig } from './config.ts';
import { type ChatMessage, MESSAGE_SELECT, type MessageRow, toMessage } from './message-row.ts';
import { checkText } from './moderation.ts';
import { assertRoomAllowed } from './room-access.ts';

export type SendMessage = Static<typeof SendMessageInput>;

/**
 * Stores a message as the next of its room. The room's counter row is taken with an upsert that locks it
 * until commit, so concurrent senders get consecutive numbers (message `seq` and `changeSeq`) in commit
 * order, and a rolled-back send gives its numbers back.
 */
export async function sendMessage(ctx: ServiceContext, input: SendMessage): Promise<ChatMessage> {
  assertRoomAllowed(ctx, input.roomId);
  checkText(input.text, await chatConfig(ctx));
  try {
    return await inTenant(ctx, async (tx, emit) => {
      const author = await actingActor(ctx, tx, input.actor);
      const id = newId('message', ctx.clock.now());
      const metadata = input.metadata ?? {};
      // Takes the room's next message and change numbers, stores the message and records its creation
      // in one statement (one round trip fewer).
      const { rows } = await tx.query<{
        seq: number | string;
        created_change: number | string;
        created_at: Date | string;
      }>(
        `with counter as (
           insert into chat_room_seq as s (tenant_id, room_id, last_seq, last_change) values ($1, $3, 1, 1)
           on conflict (tenant_id, room_id)
           do update set last_seq = s.last_seq + 1, last_change = s.last_change + 1
           returning last_seq, last_change),
         message as (
           insert into chat_messages
             (tenant_id, id, room_id, seq, created_change, author_actor_id, text, metadata, client_id)
           select $1, $2, $3, counter.last_seq, counter.last_change, $4, $5, $6, $7 from counter
           returning seq, created_change, created_at),
         logged as (
           insert into chat_changes (tenant_id, room_id, change_seq, message_id, revision, kind)
           select $1, $3, message.created_change, $2, 0, 'created' from message)
         select seq, created_change, created_at from message`,
        [
          ctx.tenantId,
          id,
          input.roomId,
          author.id,
          input.text,
          JSON.stringify(metadata),
          input.clientId ?? null,
        ],
      );
      const row = rows[0];
      if (row === undefined) throw new Error('message insert returned nothing');
      // Built from what was just written rather than read back: sending is the hot path.
      const message: ChatMessage = {
        id,
        roomId: input.roomId,
        seq: Number(row.seq),
        author,
        text: input.text,
        metadata,
        clientId: input.clientId ?? null,
        reactions: [],
        revision: 0,
        createdAt: new Date(row.created_at).toISOString(),
        editedAt: null,
        deletedAt: null,
      };
      await emit('chat.message.created', {
        roomId: input.roomId,
        message,
        changeSeq: Number(row.created_change),
      });
      return message;
    });
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

/** The message this author already sent with this clientId: a retry must not post twice. */
async function sentBefore(ctx: ServiceContext, input: SendMessage): Promise<ChatMessage | undefined> {
  const externalId = ctx.principal?.actor?.externalId ?? input.actor?.id;
  const { rows } = await tenantTx(ctx.db, { tenantId: ctx.tenantId }, (tx) =>
    tx.query<MessageRow>(
      `select ${MESSAGE_SELECT} where m.room_id = $1 and m.client_id = $2 and a.external_id = $3`,
      [input.roomId, input.clientId, externalId],
    ),
  );
  const row = rows[0];
  return row === undefined ? undefined : toMessage(row);
}
