import type { Clock } from '../../core/clock.ts';
import {
  type ErrorReporter,
  type JsonObject,
  type PubSub,
  roomChannel,
  type Unsubscribe,
} from '../../core/realtime/index.ts';
import type { ChatMessage } from '../../modules/chat/verbs/message-row.ts';
import { type ChatChange, ChatSequencer } from './chat-sequencer.ts';
import { encode } from './frames.ts';
import type { RoomMembership } from './membership.ts';
import { fromJson } from './room-messages.ts';

export interface LocalRoomDeps {
  pubsub: PubSub;
  readAfter(tenantId: string, roomId: string, afterSeq: number, limit: number): Promise<ChatMessage[]>;
  latestSeq(tenantId: string, roomId: string): Promise<number>;
  /** The module an event type belongs to (undefined for platform and app events). */
  moduleOfEvent(type: string): string | undefined;
  gapWaitMs: number;
  clock: Clock;
  report: ErrorReporter;
}

const CHAT_FRAME = { created: 'chat.message', updated: 'chat.updated', deleted: 'chat.deleted' } as const;

/**
 * A room as one instance sees it: the one backplane subscription its local sockets share, and the fan-out
 * of each channel message to them, encoded once and filtered by what each token may receive.
 */
export class LocalRoom {
  readonly members = new Set<RoomMembership>();
  private readonly sequencer: ChatSequencer;
  private unsubscribe: Unsubscribe | undefined;
  private closed = false;

  constructor(
    readonly tenantId: string,
    readonly roomId: string,
    private readonly deps: LocalRoomDeps,
  ) {
    this.sequencer = new ChatSequencer({
      readAfter: (after, limit) => deps.readAfter(tenantId, roomId, after, limit),
      deliverCreated: (message) => this.fanOutChat('created', message),
      deliverChange: (op, message) => this.fanOutChat(op, message),
      gapWaitMs: deps.gapWaitMs,
      clock: deps.clock,
      report: deps.report,
    });
  }

  /** Subscribes, then learns where the room's chat stands: messages after that are delivered in order. */
  async open(): Promise<void> {
    const unsubscribe = await this.deps.pubsub.subscribe(roomChannel(this.tenantId, this.roomId), (payload) =>
      this.receive(payload),
    );
    if (this.closed) {
      unsubscribe();
      return;
    }
    this.unsubscribe = unsubscribe;
    this.sequencer.start(await this.deps.latestSeq(this.tenantId, this.roomId));
  }

  close(): void {
    this.closed = true;
    this.unsubscribe?.();
    this.sequencer.stop();
  }

  catchUp(): void {
    this.sequencer.catchUp();
  }

  private receive(payload: JsonObject): void {
    const message = fromJson(payload);
    if (message === undefined) {
      this.deps.report(new Error('unreadable room message'), `realtime room ${this.roomId}`);
      return;
    }
    const room = this.roomId;
    switch (message.k) {
      case 'chat':
        if (message.op === 'created') this.sequencer.created(message.message);
        else this.sequencer.changed(message.op, message.message);
        return;
      case 'presence': {
        const frame =
          message.op === 'leave'
            ? encode({ type: 'presence.leave', room, actorId: message.actorId })
            : encode({ type: `presence.${message.op}`, room, member: message.member });
        for (const m of this.members) if (m.connection.can.presenceRead) m.deliver(frame);
        return;
      }
      case 'typing': {
        const frame = encode({ type: 'typing', room, actor: message.actor });
        for (const m of this.members) {
          if (m.connection.can.chatRead && m.connection.id !== message.from) m.deliver(frame);
        }
        return;
      }
      case 'event': {
        const module = this.deps.moduleOfEvent(message.event.type);
        const frame = encode({ type: 'event', room, event: message.event });
        for (const m of this.members) {
          if (module === undefined || m.connection.can.modules.has(module)) m.deliver(frame);
        }
        if (message.event.type === 'room.deleted') this.restartNumbering();
        return;
      }
    }
  }

  /** The room is gone with its messages; one created again under its id counts from 1 again. */
  private restartNumbering(): void {
    this.sequencer.reset();
    for (const m of this.members) m.lastSeq = 0;
  }

  private fanOutChat(op: 'created' | ChatChange, message: ChatMessage): void {
    const frame = encode({ type: CHAT_FRAME[op], room: this.roomId, message });
    for (const m of this.members) {
      if (!m.connection.can.chatRead) continue;
      if (op === 'created') m.deliverChat(message.seq, frame);
      else m.deliver(frame);
    }
  }
}
