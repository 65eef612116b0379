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
/**
 * A flush to many sockets is written in slices of about this long, each in a turn of its own, so that what
 * arrived meanwhile (a database answer a transaction waits for, a client's frame) is not held up by the
 * whole flush.
 */
const SLICE_MS = 2;
/** Sockets written between two looks at the clock. */
const SLICE_CHECK_EVERY = 16;

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
 * A flush to many sockets costs a system call each (most of a fan-out's CPU on a virtual machine). It is
 * written in slices of SLICE_MS, a turn each. After a flush whose slices took `t` ms in all (at least
 * MIN_FLUSH_TO_REST_MS), the next starts `t` ms after it ended (REST_PER_FLUSH_MS, at most MAX_REST_MS):
 * under a stream of messages the frames of several then leave in one write per socket, instead of the
 * writes taking every turn and the frames queueing behind them. A connection sent a frame while a flush is
 * under way waits for the next one, unless it is still corked in the flush under way.
 */
export class WriteCoalescer {
  /** The frames' wire forms, shared by every connection of the gateway. */
  readonly forms = new WireForms();
  /** Connections corked since the flush under way (or the last one) began. */
  private gathering = new Set<Corked>();
  /** The flush under way: its connections, and how many of them are written. */
  private flushing: Corked[] = [];
  private written = 0;
  /** What the slices of the flush under way have taken so far, in ms. */
  private spent = 0;
  private scheduled = false;
  /** `now()` before which no flush starts (0: none waits). */
  private restUntil = 0;

  constructor(private readonly timing: FlushTiming = SYSTEM_TIMING) {}

  add(connection: Corked): void {
    this.gathering.add(connection);
    if (this.scheduled || this.written < this.flushing.length) return;
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    this.scheduled = true;
    this.timing.later(() => this.startFlush(), Math.max(0, this.restUntil - this.timing.now()));
  }

  private startFlush(): void {
    this.scheduled = false;
    this.flushing = [...this.gathering];
    this.gathering = new Set();
    this.written = 0;
    this.spent = 0;
    this.writeSlice();
  }

  private writeSlice(): void {
    const { flushing, timing } = this;
    const started = timing.now();
    let i = this.written;
    while (i < flushing.length) {
      (flushing[i] as Corked).flush();
      i += 1;
      if (i % SLICE_CHECK_EVERY === 0 && timing.now() - started >= SLICE_MS) break;
    }
    this.written = i;
    const now = timing.now();
    this.spent += now - started;
    if (i < flushing.length) {
      timing.later(() => this.writeSlice(), 0);
      return;
    }
    this.flushing = [];
    this.written = 0;
    this.restUntil =
      this.spent < MIN_FLUSH_TO_REST_MS ? 0 : now + Math.min(MAX_REST_MS, this.spent * REST_PER_FLUSH_MS);
    if (this.gathering.size > 0) this.scheduleFlush();
  }
}

/** A text frame's header, written at `at` of `wire`: FIN, the text opcode and the length (no mask). */
function writeHeader(wire: Buffer, at: number, length: number): void {
  wire[at] = 0x81;
  if (length < 126) wire[at + 1] = length;
  else if (length < 65_536) {
    wire[at + 1] = 126;
    wire.writeUInt16BE(length, at + 2);
  } else {
    wire[at + 1] = 127;
    wire.writeBigUInt64BE(BigInt(length), at + 2);
  }
}

function headerLength(length: number): number {
  return length < 126 ? 2 : length < 65_536 ? 4 : 10;
}

/** The header of a text frame whose payload of `length` bytes follows it in parts (Connection.sendParts). */
export function frameHeader(length: number): Buffer {
  const header = Buffer.allocUnsafe(headerLength(length));
  writeHeader(header, 0, length);
  return header;
}

/** A text frame as it goes on the wire (RFC 6455 section 5.2: FIN, the text opcode, the length, no mask). */
export function wireForm(frame: EncodedFrame): Buffer {
  const length = frame.length;
  const header = headerLength(length);
  // A large frame made with room in front for its header (encodeFrame) is not copied again.
  const inPlace = withHeadroom(frame);
  const wire = inPlace
    ? Buffer.from(frame.buffer, frame.byteOffset - header, header + length)
    : Buffer.allocUnsafe(header + length);
  writeHeader(wire, 0, length);
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
