import type { TenantEvent } from '../../../core/events/types.ts';
import type { RoomMessage } from '../../../core/realtime/contributions.ts';
import type { JsonObject, JsonValue } from '../../../core/realtime/index.ts';
import { ACTOR_TYPES, type Actor } from '../../../core/tenancy/actors.ts';
import type { ChatMessage } from '../store/message-row.ts';
import type { ChatOp } from './changes.ts';

/**
 * What chat publishes on a room's channel. `changeSeq` is absent only when an instance older than change
 * numbers published it (rolling deploy).
 */
export interface ChatChangeMessage extends RoomMessage {
  k: 'chat';
  op: ChatOp;
  message: ChatMessage;
  changeSeq?: number;
}

export interface TypingMessage extends RoomMessage {
  k: 'typing';
  /** Who is typing, as the room's other members see it. */
  actor: Actor;
  /** The connection that is typing: it does not get its own typing frame. */
  from: string;
}

const CHAT_OPS = {
  'chat.message.created': 'created',
  'chat.message.updated': 'updated',
  'chat.message.deleted': 'deleted',
} as const;

function isChatEvent(type: string): type is keyof typeof CHAT_OPS {
  return Object.hasOwn(CHAT_OPS, type);
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isOp(value: JsonValue | undefined): value is ChatOp {
  return value === 'created' || value === 'updated' || value === 'deleted';
}

/** A committed chat event as the change its room's members get, in change order. */
export function changeMessageOf(event: TenantEvent): ChatChangeMessage | undefined {
  if (!isChatEvent(event.type)) return undefined;
  const op = CHAT_OPS[event.type];
  const message = event.data.message as ChatMessage | undefined;
  if (message === undefined) return undefined;
  const { changeSeq } = event.data;
  return { k: 'chat', op, message, ...(typeof changeSeq === 'number' ? { changeSeq } : {}) };
}

/**
 * An actor as a channel payload names it. An instance older than issue 29 published `{id: <internal id>,
 * type, externalId}`: it is read as the Actor object (its provider being its id's prefix), so no internal
 * id reaches a socket during a rolling deploy.
 */
function actorIn(value: JsonValue | undefined): Actor | undefined {
  if (!isObject(value)) return undefined;
  const { type, id, identityProvider, externalId } = value;
  const kind = ACTOR_TYPES.find((t) => t === type);
  if (kind === undefined) return undefined;
  if (typeof externalId === 'string')
    return { type: kind, id: externalId, identityProvider: externalId.slice(0, externalId.indexOf(':')) };
  if (typeof id !== 'string' || typeof identityProvider !== 'string') return undefined;
  return { type: kind, id, identityProvider };
}

/**
 * Reads a channel payload back. Only this service publishes on these channels, so a payload is trusted
 * once its discriminating fields check out; anything else is dropped rather than half-delivered.
 */
export function readChangeMessage(payload: JsonObject): ChatChangeMessage | undefined {
  const { op, message, changeSeq } = payload;
  if (!isOp(op) || !isObject(message)) return undefined;
  if (typeof message.seq !== 'number' || typeof message.id !== 'string') return undefined;
  const author = actorIn(message.author);
  if (author === undefined) return undefined;
  const chat: ChatChangeMessage = {
    k: 'chat',
    op,
    message: { ...(message as unknown as ChatMessage), author },
  };
  if (changeSeq === undefined) return chat;
  return typeof changeSeq === 'number' ? { ...chat, changeSeq } : undefined;
}

export function readTypingMessage(payload: JsonObject): TypingMessage | undefined {
  const { from } = payload;
  const actor = actorIn(payload.actor);
  if (actor === undefined || typeof from !== 'string') return undefined;
  return { k: 'typing', actor, from };
}
