import type { TenantEvent } from '../../../core/events/types.ts';
import type { RoomMessage } from '../../../core/realtime/contributions.ts';
import type { JsonObject, JsonValue } from '../../../core/realtime/index.ts';
import type { ChatMessage } from '../verbs/message-row.ts';
import type { ChatOp } from './changes.ts';

/** Who is typing, as the room's other members see it. */
export interface TypingActor {
  id: string;
  type: string;
  externalId: string;
}

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
  actor: TypingActor;
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
 * Reads a channel payload back. Only this service publishes on these channels, so a payload is trusted
 * once its discriminating fields check out; anything else is dropped rather than half-delivered.
 */
export function readChangeMessage(payload: JsonObject): ChatChangeMessage | undefined {
  const { op, message, changeSeq } = payload;
  if (!isOp(op) || !isObject(message)) return undefined;
  if (typeof message.seq !== 'number' || typeof message.id !== 'string') return undefined;
  const chat: ChatChangeMessage = { k: 'chat', op, message: message as unknown as ChatMessage };
  if (changeSeq === undefined) return chat;
  return typeof changeSeq === 'number' ? { ...chat, changeSeq } : undefined;
}

export function readTypingMessage(payload: JsonObject): TypingMessage | undefined {
  const { actor, from } = payload;
  if (!isObject(actor) || typeof from !== 'string') return undefined;
  const { id, type, externalId } = actor;
  if (typeof id !== 'string' || typeof type !== 'string' || typeof externalId !== 'string') return undefined;
  return { k: 'typing', actor: { id, type, externalId }, from };
}
