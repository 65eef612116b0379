import type { JsonObject, RoomKey } from '../../core/realtime/index.ts';
import { CLOSE } from './close-codes.ts';
import type { Connection } from './connection.ts';
import type { EncodedFrame } from './frames.ts';

interface HeldFrame {
  /** Chat changes carry their number, so frames already sent by the catch-up are not sent twice. */
  changeSeq: number | undefined;
  frame: EncodedFrame;
}

/**
 * One connection in one room. Until `goLive()` the connection is catching up (the `joined` frame, then
 * changes read from the database): live frames of the room are held meanwhile, then sent in order, each
 * chat change at most once (by changeSeq).
 */
export class RoomMembership {
  /** The newest chat change of the room this connection has (sent, or already in a message it was sent). */
  lastChange = 0;
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

  deliverChat(changeSeq: number, frame: EncodedFrame): void {
    if (this.held !== undefined) {
      this.hold({ changeSeq, frame });
    } else if (changeSeq > this.lastChange) {
      this.lastChange = changeSeq;
      this.connection.send(frame);
    }
  }

  deliver(frame: EncodedFrame): void {
    if (this.held !== undefined) this.hold({ changeSeq: undefined, frame });
    else this.connection.send(frame);
  }

  /**
   * A change read from the database during catch-up; without a frame when the client has it already (it
   * was in a message sent before), so that only the position moves on.
   */
  caughtUp(changeSeq: number, frame: EncodedFrame | undefined): void {
    if (changeSeq <= this.lastChange) return;
    this.lastChange = changeSeq;
    if (frame !== undefined) this.connection.send(frame);
  }

  goLive(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const { changeSeq, frame } of held) {
      if (changeSeq === undefined) this.deliver(frame);
      else this.deliverChat(changeSeq, frame);
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
