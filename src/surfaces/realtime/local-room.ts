import type { Clock } from '../../core/clock.ts';
import {
  type ErrorReporter,
  type JsonObject,
  type PubSub,
  roomChannel,
  type Unsubscribe,
} from '../../core/realtime/index.ts';
import type { StoredChange } from '../../modules/chat/verbs/list-changes.ts';
import { type ChatChange, chatFrame, liveChange } from './chat-change.ts';
import { ChatSequencer } from './chat-sequencer.ts';
import { encode } from './frames.ts';
import type { RoomMembership } from './membership.ts';
import { fromJson } from './room-messages.ts';

export interface LocalRoomDeps {
  pubsub: PubSub;
  readChanges(tenantId: string, roomId: string, after: number, limit: number): Promise<StoredChange[]>;
  latestChange(tenantId: string, roomId: string): Promise<number>;
  /** The module an event type belongs to (undefined for platform and app events). */
  moduleOfEvent(type: string): string | undefined;
  gapWaitMs: number;
  clock: Clock;
  report: ErrorReporter;
}

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
      readAfter: (after, limit) => deps.readChanges(tenantId, roomId, after, limit),
      deliver: (change) => this.fanOutChat(change),
      gapWaitMs: deps.gapWaitMs,
      clock: deps.clock,
      report: deps.report,
    });
  }

  /** Subscribes, then learns where the room's chat stands: changes after that are delivered in order. */
  async open(): Promise<void> {
    const unsubscribe = await this.deps.pubsub.subscribe(roomChannel(this.tenantId, this.roomId), (payload) =>
      this.receive(payload),
    );
    if (this.closed) {
      unsubscribe();
      return;
    }
    this.unsubscribe = unsubscribe;
    this.sequencer.start(await this.deps.latestChange(this.tenantId, this.roomId));
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
        if (message.changeSeq === undefined) this.fanOutUnnumbered(message);
        else this.sequencer.received(liveChange(message.op, message.message, message.changeSeq));
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
    for (const m of this.members) m.lastChange = 0;
  }

  private fanOutChat(change: ChatChange): void {
    const frame = chatFrame(this.roomId, change);
    for (const m of this.members) {
      if (m.connection.can.chatRead) m.deliverChat(change.changeSeq, frame);
    }
  }

  /** A change published by an instance older than change numbers (a rolling deploy): passed on as is. */
  private fanOutUnnumbered(change: Pick<ChatChange, 'op' | 'message'>): void {
    const frame = chatFrame(this.roomId, change);
    for (const m of this.members) if (m.connection.can.chatRead) m.deliver(frame);
  }
}
