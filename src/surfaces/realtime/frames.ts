import type { ErrorDetail } from '../../core/http/errors.ts';
import type { ChatMessage } from '../../modules/chat/verbs/message-row.ts';
import type { MemberView } from '../../modules/presence/member.ts';

/** A frame encoded once, then written to any number of sockets. */
export type EncodedFrame = Buffer;

export interface ActorView {
  id: string;
  type: string;
  externalId: string;
}

/** A tenant event as sockets see it (without trace metadata, which is for the tenant's servers). */
export interface RoomEventView {
  id: string;
  type: string;
  data: Record<string, unknown>;
  createdAt: string;
}

export type ServerFrame =
  | { type: 'joined'; room: string; members: MemberView[]; seq: number; changeSeq: number; ref?: string }
  | { type: 'presence.join' | 'presence.update'; room: string; member: MemberView }
  | { type: 'presence.leave'; room: string; actorId: string }
  | {
      type: 'chat.message' | 'chat.updated' | 'chat.deleted';
      room: string;
      message: ChatMessage;
      changeSeq?: number;
    }
  | { type: 'typing'; room: string; actor: ActorView }
  | { type: 'event'; room: string; event: RoomEventView }
  | { type: 'error'; code: string; message: string; ref?: string; details?: ErrorDetail[] }
  | { type: 'pong'; ref?: string };

export function encode(frame: ServerFrame): EncodedFrame {
  return Buffer.from(JSON.stringify(frame));
}

export function errorFrame(
  code: string,
  message: string,
  ref: string | undefined,
  details?: ErrorDetail[],
): EncodedFrame {
  return encode({
    type: 'error',
    code,
    message,
    ...(ref === undefined ? {} : { ref }),
    ...(details === undefined || details.length === 0 ? {} : { details }),
  });
}
