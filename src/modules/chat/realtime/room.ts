import type { ModuleRoom, RealtimeHost, RealtimeRoom } from '../../../core/realtime/contributions.ts';
import { encodeFrame } from '../../../core/realtime/contributions.ts';
import type { JsonObject } from '../../../core/realtime/index.ts';
import { readChanges } from '../store/change-log.ts';
import { roomPosition } from '../store/room-position.ts';
import { CHAT_STREAM, type ChatChange, chatFrame, liveChange } from './changes.ts';
import { readChangeMessage, readTypingMessage } from './messages.ts';
import { ChatSequencer } from './sequencer.ts';

/**
 * Chat in one room on one instance: changes are delivered to members whose token reads chat, in change
 * order (the sequencer), and typing frames to the other connections.
 */
export function chatRoom(host: RealtimeHost, room: RealtimeRoom, gapWaitMs: number): ModuleRoom {
  const { tenantId, roomId } = room;
  const mayRead = (m: { connection: { may(module: string, scope: string): boolean } }) =>
    m.connection.may('chat', 'chat:read');

  const fanOut = (change: ChatChange): void => {
    const frame = chatFrame(roomId, change);
    for (const m of room.members) if (mayRead(m)) m.deliverInOrder(CHAT_STREAM, change.changeSeq, frame);
  };
  const sequencer = new ChatSequencer({
    readAfter: async (after, limit) =>
      (await readChanges(host.systemContext(tenantId), { roomId, after, limit })).data,
    deliver: fanOut,
    gapWaitMs,
    clock: host.clock,
    report: host.report,
  });

  const receive = (kind: string, payload: JsonObject): void => {
    if (kind === 'typing') {
      const typing = readTypingMessage(payload);
      if (typing === undefined) {
        host.report(new Error('unreadable typing message'), `room ${roomId}`);
        return;
      }
      const frame = encodeFrame({ type: 'typing', room: roomId, actor: typing.actor });
      for (const m of room.members) if (mayRead(m) && m.connection.id !== typing.from) m.deliver(frame);
      return;
    }
    const change = readChangeMessage(payload);
    if (change === undefined) {
      host.report(new Error('unreadable chat change'), `room ${roomId}`);
      return;
    }
    if (change.changeSeq !== undefined) {
      sequencer.received(liveChange(change.op, change.message, change.changeSeq));
      return;
    }
    // A change published by an instance older than change numbers (a rolling deploy): passed on as is.
    const frame = chatFrame(roomId, change);
    for (const m of room.members) if (mayRead(m)) m.deliver(frame);
  };

  return {
    open: async () => sequencer.start((await roomPosition(host.systemContext(tenantId), roomId)).changeSeq),
    receive,
    catchUp: () => sequencer.catchUp(),
    reset: () => {
      // The room is gone with its messages; one created again under its id counts from 1 again.
      sequencer.reset();
      for (const m of room.members) m.setPosition(CHAT_STREAM, 0);
    },
    close: () => sequencer.stop(),
  };
}
