import type { TenantEvent } from '../../core/events/types.ts';
import type { ChatMessage } from '../../modules/chat/verbs/message-row.ts';
import type { RoomMessage } from './room-messages.ts';

const ROOM_ID = /^[A-Za-z0-9_-]{1,128}$/;
const CHAT_OPS = {
  'chat.message.created': 'created',
  'chat.message.updated': 'updated',
  'chat.message.deleted': 'deleted',
} as const;

function isChatEvent(type: string): type is keyof typeof CHAT_OPS {
  return Object.hasOwn(CHAT_OPS, type);
}

/**
 * What a committed tenant event becomes on its room's channel, if it concerns a room (`data.roomId`):
 * chat events become chat changes (delivered in changeSeq order), any other event an `event` frame. Each
 * event is committed and published on one instance, so it reaches the channel exactly once.
 */
export function roomMessageOf(event: TenantEvent): { roomId: string; message: RoomMessage } | undefined {
  const roomId = event.data.roomId;
  if (typeof roomId !== 'string' || !ROOM_ID.test(roomId)) return undefined;
  if (isChatEvent(event.type)) {
    const message = event.data.message as ChatMessage | undefined;
    if (message === undefined) return undefined;
    const chat = { k: 'chat', op: CHAT_OPS[event.type], message } as const;
    const { changeSeq } = event.data;
    return { roomId, message: typeof changeSeq === 'number' ? { ...chat, changeSeq } : chat };
  }
  return {
    roomId,
    message: {
      k: 'event',
      event: { id: event.id, type: event.type, data: event.data, createdAt: event.createdAt },
    },
  };
}
