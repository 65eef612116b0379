import { type EncodedFrame, withHeadroom } from '../../core/realtime/contributions.ts';

/** What the coalescer flushes at the end of a turn. */
export interface Corked {
  flush(): void;
}

/**
 * Write coalescing: every frame a connection is sent during one event-loop turn leaves in one write at the
 * end of the turn (the socket is corked on its first frame and uncorked by one `setImmediate` for all
 * connections). An idle server adds no delay; a busy one makes fewer, larger writes instead of one system
 * call per frame per socket, which is what a room fan-out is made of. One per gateway.
 */
export class WriteCoalescer {
  /** The frames' wire forms, shared by every connection of the gateway. */
  readonly forms = new WireForms();
  private corked = new Set<Corked>();
  private scheduled = false;

  add(connection: Corked): void {
    this.corked.add(connection);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flushAll());
  }

  private flushAll(): void {
    this.scheduled = false;
    const corked = this.corked;
    this.corked = new Set();
    for (const connection of corked) connection.flush();
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
