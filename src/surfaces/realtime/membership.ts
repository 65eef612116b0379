import type { JsonObject, RoomKey } from '../../core/realtime/index.ts';
import { CLOSE } from './close-codes.ts';
import type { Connection } from './connection.ts';
import type { EncodedFrame } from './frames.ts';

interface HeldFrame {
  /** Chat messages carry their seq, so frames already sent by the catch-up are not sent twice. */
  seq: number | undefined;
  frame: EncodedFrame;
}

/**
 * One connection in one room. Until `goLive()` the connection is catching up (the `joined` frame, then
 * messages read from the database): live frames of the room are held meanwhile, then sent in order, each
 * chat message at most once (by seq).
 */
export class RoomMembership {
  /** The newest chat seq this connection was sent in this room. */
  lastSeq = 0;
  /** The client's presence state when the connection is a presence member of the room. */
  presenceState: JsonObject | undefined;
  lastTypingAt = Number.NEGATIVE_INFINITY;
  private held: HeldFrame[] | undefined = [];

  constructor(
    readonly roomId: string,
    readonly key: RoomKey,
    readonly connection: Connection,
    private readonly maxHeld: number,
  ) {}

  get isPresenceMember(): boolean {
    return this.presenceState !== undefined;
  }

  deliverChat(seq: number, frame: EncodedFrame): void {
    if (this.held !== undefined) {
      this.hold({ seq, frame });
    } else if (seq > this.lastSeq) {
      this.lastSeq = seq;
      this.connection.send(frame);
    }
  }

  deliver(frame: EncodedFrame): void {
    if (this.held !== undefined) this.hold({ seq: undefined, frame });
    else this.connection.send(frame);
  }

  /** A message read from the database during catch-up. */
  sendCaughtUp(seq: number, frame: EncodedFrame): void {
    if (seq <= this.lastSeq) return;
    this.lastSeq = seq;
    this.connection.send(frame);
  }

  goLive(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const { seq, frame } of held) {
      if (seq === undefined) this.deliver(frame);
      else this.deliverChat(seq, frame);
    }
  }

  private hold(item: HeldFrame): void {
    const held = this.held ?? [];
    if (held.length >= this.maxHeld) {
      this.connection.close(CLOSE.slowConsumer, 'the room moved faster than this connection caught up');
      return;
    }
    held.push(item);
  }
}
