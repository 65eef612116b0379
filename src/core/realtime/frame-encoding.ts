// How server frames become bytes: JSON encoded once per frame, with large shared values (RawJson) spliced in
// as they are, and room in front of a large frame for its WebSocket header.

/** A frame encoded once, then written to any number of sockets. */
export type EncodedFrame = Buffer;

/**
 * A field's value already encoded as JSON, spliced as it is into the frames it goes in: a large value
 * many frames share (a room's member list in the `joined` frames of a crowd) is encoded once.
 */
export class RawJson {
  constructor(readonly bytes: Buffer) {}

  static of(value: unknown): RawJson {
    return new RawJson(Buffer.from(JSON.stringify(value)));
  }
}

function hasRawField(frame: Record<string, unknown>): boolean {
  for (const key in frame) if (frame[key] instanceof RawJson) return true;
  return false;
}

/**
 * A frame as the parts its bytes are made of, not joined: the RawJson fields' bytes as they are (a full
 * room's member list, which every `joined` of a crowd shares) and the text around them. One part when no
 * field is RawJson. A connection writes the parts to its socket one after the other, so a shared value is
 * not copied into each frame (see Connection.sendParts).
 */
export function encodeFrameParts(frame: { type: string; [field: string]: unknown }): Buffer[] {
  if (!hasRawField(frame)) return [Buffer.from(JSON.stringify(frame))];
  const parts: Buffer[] = [];
  let text = '{';
  for (const [key, value] of Object.entries(frame)) {
    const json = value instanceof RawJson ? undefined : JSON.stringify(value);
    if (!(value instanceof RawJson) && json === undefined) continue;
    text += `${text === '{' && parts.length === 0 ? '' : ','}${JSON.stringify(key)}:`;
    if (value instanceof RawJson) {
      parts.push(Buffer.from(text), value.bytes);
      text = '';
    } else text += json;
  }
  parts.push(Buffer.from(`${text}}`));
  return parts;
}

/** Every server frame is a JSON object with a `type`; its top-level fields may be RawJson. */
export function encodeFrame(frame: { type: string; [field: string]: unknown }): EncodedFrame {
  if (!hasRawField(frame)) return Buffer.from(JSON.stringify(frame));
  const parts = encodeFrameParts(frame);
  // Large (a full room's `joined`): copied once into a buffer with room for the WebSocket header in front,
  // so its wire form is a view of it instead of a second copy (see withHeadroom).
  const length = parts.reduce((n, part) => n + part.length, 0);
  const whole = Buffer.allocUnsafeSlow(HEADROOM + length);
  let at = HEADROOM;
  for (const part of parts) at += part.copy(whole, at);
  const frameBytes = whole.subarray(HEADROOM);
  headroomed.add(frameBytes);
  return frameBytes;
}

/** The longest WebSocket header of a server frame (FIN and opcode, 127, a 64-bit length). */
const HEADROOM = 10;
const headroomed = new WeakSet<EncodedFrame>();

/**
 * Whether the frame's bytes have `HEADROOM` bytes of their own in front of them (encodeFrame made it so):
 * its wire form may write the header there and be a view of the same memory.
 */
export function withHeadroom(frame: EncodedFrame): boolean {
  return headroomed.has(frame);
}
