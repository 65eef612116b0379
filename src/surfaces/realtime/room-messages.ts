import type { JsonObject, JsonValue } from '../../core/realtime/index.ts';
import type { ChatMessage } from '../../modules/chat/verbs/message-row.ts';
import type { MemberView } from '../../modules/presence/member.ts';
import type { ActorView, RoomEventView } from './frames.ts';

/**
 * What travels on a room's backplane channel. Every instance with a socket in the room receives it and
 * turns it into frames; the room id is the channel's, so it is not repeated here.
 */
export type RoomMessage =
  /** `changeSeq` is absent only when an instance older than change numbers published it (rolling deploy). */
  | { k: 'chat'; op: 'created' | 'updated' | 'deleted'; message: ChatMessage; changeSeq?: number }
  | { k: 'presence'; op: 'join' | 'update'; member: MemberView }
  | { k: 'presence'; op: 'leave'; actorId: string }
  | { k: 'typing'; actor: ActorView; from: string }
  | { k: 'event'; event: RoomEventView };

/** The backplane carries JSON objects; these messages are built from JSON values only. */
export function toJson(message: RoomMessage): JsonObject {
  return message as unknown as JsonObject;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads a channel payload back. Only this service publishes on these channels, so a payload is trusted
 * once its discriminating fields check out; anything else is dropped rather than half-delivered.
 */
export function fromJson(payload: JsonObject): RoomMessage | undefined {
  switch (payload.k) {
    case 'chat': {
      const { op, message, changeSeq } = payload;
      if ((op === 'created' || op === 'updated' || op === 'deleted') && isObject(message)) {
        if (typeof message.seq === 'number' && typeof message.id === 'string') {
          const chat = { k: 'chat', op, message: message as unknown as ChatMessage } as const;
          if (changeSeq === undefined) return chat;
          if (typeof changeSeq === 'number') return { ...chat, changeSeq };
        }
      }
      return undefined;
    }
    case 'presence': {
      const { op } = payload;
      if (op === 'leave' && typeof payload.actorId === 'string') {
        return { k: 'presence', op, actorId: payload.actorId };
      }
      if ((op === 'join' || op === 'update') && isObject(payload.member)) {
        return { k: 'presence', op, member: payload.member as unknown as MemberView };
      }
      return undefined;
    }
    case 'typing':
      if (isObject(payload.actor) && typeof payload.from === 'string') {
        return { k: 'typing', actor: payload.actor as unknown as ActorView, from: payload.from };
      }
      return undefined;
    case 'event':
      if (isObject(payload.event) && typeof payload.event.type === 'string') {
        return { k: 'event', event: payload.event as unknown as RoomEventView };
      }
      return undefined;
    default:
      return undefined;
  }
}
