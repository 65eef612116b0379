import { type EncodedFrame, withHeadroom } from '../../core/realtime/contributions.ts';

/** What the coalescer flushes at the end of a turn. */
export interface Corked {
  flush(): void;
}

/**
 * How long the coalescer waits after a flush before the next one, as a share of what that flush took: 1
 * means writing takes at most about half of the event loop's time while the next frames gather.
 */
const REST_PER_FLUSH_MS = 1;
/** A flush shorter than this (a few sockets) is followed by no wait at all: the next turn may write. */
const MIN_FLUSH_TO_REST_MS = 0.5;
/** The longest a frame waits for a flush because of the one before it. */
const MAX_REST_MS = 20;

/** The coalescer's time: a monotonic clock in ms, and a callback after `ms` (0: the next turn, after I/O). */
export interface FlushTiming {
  now(): number;
  later(fn: () => void, ms: number): void;
}

const SYSTEM_TIMING: FlushTiming = {
  now: () => performance.now(),
  later: (fn, ms) => {
    if (ms > 0) setTimeout(fn, ms);
    else setImmediate(fn);
  },
};

/**
 * Write coalescing: every frame a connection is sent during one event-loop turn leaves in one write at the
 * end of the turn (the socket is corked on its first frame and uncorked by one `setImmediate` for all
 * connections). An idle server adds no delay; a busy one makes fewer, larger writes instead of one system
 * call per frame per socket, which is what a room fan-out is made of. One per gateway.
 *
 * A flush to many sockets costs a system call each (most of a fan-out's CPU on a virtual machine). After a
 * flush that took `t` ms (at least MIN_FLUSH_TO_REST_MS), the next waits until `t` ms have passed
 * (REST_PER_FLUSH_MS, at most MAX_REST_MS): under a stream of messages the frames of several then leave in
 * one write per socket, instead of the writes taking every turn and the frames queueing behind them.
 */
export class WriteCoalescer {
  /** The frames' wire forms, shared by every connection of the gateway. */
  readonly forms = new WireForms();
  private corked = new Set<Corked>();
  private scheduled = false;
  /** `now()` before which no flush starts (0: none waits). */
  private restUntil = 0;

  constructor(private readonly timing: FlushTiming = SYSTEM_TIMING) {}

  add(connection: Corked): void {
    this.corked.add(connection);
    if (this.scheduled) return;
    this.scheduled = true;
    this.timing.later(() => this.flushAll(), Math.max(0, this.restUntil - this.timing.now()));
  }

  private flushAll(): void {
    this.scheduled = false;
    const corked = this.corked;
    this.corked = new Set();
    const started = this.timing.now();
    for (const connection of corked) connection.flush();
    const ended = this.timing.now();
    const took = ended - started;
    this.restUntil =
      took < MIN_FLUSH_TO_REST_MS ? 0 : ended + Math.min(MAX_REST_MS, took * REST_PER_FLUSH_MS);
  }
}

/** A text frame as it goes on the wire (RFC 6455 section 5.2: FIN, the text opcode, the length, no mask). */
export function wireForm(frame: EncodedFrame): Buffer {
  const length = frame.length;
  const header = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  // A large frame made with room in front for its header (encodeFrame) is not copied again.
  const inPlace = withHeadroom(frame);
  const wire = inPlace
    ? Buffer.from(frame.buffer, frame.byteOffset - header, header + length)
    : Buffer.allocUnsafe(header + length);
  wire[0] = 0x81;
  if (header === 2) wire[1] = length;
  else if (header === 4) {
    wire[1] = 126;
    wire.writeUInt16BE(length, 2);
  } else {
    wire[1] = 127;
    wire.writeBigUInt64BE(BigInt(length), 2);
  }
  if (!inPlace) frame.copy(wire, header);
  return wire;
}

/**
 * Each frame's wire form, made once and written as it is to every socket it goes to (a server's frames are
 * never masked): a room's fan-out then costs one write per socket and frame, where `ws` framed each send on
 * its own and wrote the header and the payload apart. One per gateway.
 */
export class WireForms {
  private readonly forms = new WeakMap<EncodedFrame, Buffer>();

  of(frame: EncodedFrame): Buffer {
    let wire = this.forms.get(frame);
    if (wire === undefined) {
      wire = wireForm(frame);
      this.forms.set(frame, wire);
    }
    return wire;
  }
}
