import type {
  EncodedFrame,
  RealtimeConnection,
  RealtimeMembership,
} from '../../core/realtime/contributions.ts';
import type { RoomKey } from '../../core/realtime/index.ts';
import { CLOSE, type CloseCode } from './close-codes.ts';

/** What a membership needs of its connection (the gateway's Connection). */
export interface MemberConnection extends RealtimeConnection {
  readonly modules: ReadonlySet<string>;
  close(code: CloseCode, reason: string): void;
}

interface HeldFrame {
  /** Frames of an ordered stream carry their position, so ones the catch-up already sent are not sent twice. */
  stream: string | undefined;
  position: number;
  frame: EncodedFrame;
}

/**
 * One connection in one room. Until `goLive()` the connection is catching up (the `joined` frame, then
 * what modules read from the database): live frames of the room are held meanwhile, then sent in order,
 * each position of an ordered stream at most once.
 */
export class RoomMembership implements RealtimeMembership {
  private readonly positions = new Map<string, number>();
  private held: HeldFrame[] | undefined = [];

  constructor(
    readonly roomId: string,
    readonly key: RoomKey,
    readonly connection: MemberConnection,
    private readonly maxHeld: number,
  ) {}

  position(stream: string): number {
    return this.positions.get(stream) ?? 0;
  }

  setPosition(stream: string, position: number): void {
    this.positions.set(stream, position);
  }

  deliverInOrder(stream: string, position: number, frame: EncodedFrame): void {
    if (this.held !== undefined) {
      this.hold({ stream, position, frame });
    } else if (position > this.position(stream)) {
      this.positions.set(stream, position);
      this.connection.send(frame);
    }
  }

  deliver(frame: EncodedFrame): void {
    if (this.held !== undefined) this.hold({ stream: undefined, position: 0, frame });
    else this.connection.send(frame);
  }

  caughtUp(stream: string, position: number, frame: EncodedFrame | undefined): void {
    if (position <= this.position(stream)) return;
    this.positions.set(stream, position);
    if (frame !== undefined) this.connection.send(frame);
  }

  goLive(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const { stream, position, frame } of held) {
      if (stream === undefined) this.deliver(frame);
      else this.deliverInOrder(stream, position, frame);
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
