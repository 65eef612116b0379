import type { RealtimeHooks } from '../../../core/realtime/contributions.ts';
import { chatSendFrame, typingFrame } from './frames.ts';
import { chatJoin } from './join.ts';
import { changeMessageOf } from './messages.ts';
import { chatRoom } from './room.ts';

/**
 * Chat on the realtime gateway: `chat.send` and `typing` frames; `joined` carries where the room's chat
 * stands and a resuming join gets what it missed; chat events reach rooms as changes in change order
 * (`chat.message`, `chat.updated`, `chat.deleted`), never as generic `event` frames.
 */
export function chatRealtime(): RealtimeHooks {
  return {
    frames: [chatSendFrame, typingFrame()],
    join: chatJoin(),
    roomMessages: ['chat', 'typing'],
    room: chatRoom,
    relay: (event) => changeMessageOf(event),
  };
}
