import type { RealtimeHooks } from '../../../core/realtime/contributions.ts';
import { chatSendFrame, typingFrame } from './frames.ts';
import { chatJoin } from './join.ts';
import { changeMessageOf } from './messages.ts';
import { type ChatRealtimeOptions, DEFAULT_CHAT_REALTIME } from './options.ts';
import { chatRoom } from './room.ts';

/**
 * Chat on the realtime gateway: `chat.send` and `typing` frames; `joined` carries where the room's chat
 * stands and a resuming join gets what it missed; chat events reach rooms as changes in change order
 * (`chat.message`, `chat.updated`, `chat.deleted`), never as generic `event` frames.
 */
export function chatRealtime(overrides: Partial<ChatRealtimeOptions> = {}): RealtimeHooks {
  const options = { ...DEFAULT_CHAT_REALTIME, ...overrides };
  return {
    frames: [chatSendFrame, typingFrame(options.typingIntervalMs)],
    join: chatJoin(options.replayPageSize),
    roomMessages: ['chat', 'typing'],
    room: (host, room) => chatRoom(host, room, options.gapWaitMs),
    relay: (event) => changeMessageOf(event),
  };
}
