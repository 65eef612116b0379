import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as ws from 'ws';
import { encodeFrame, encodeFrameParts, RawJson } from '../../src/core/realtime/contributions.ts';
import { frameHeader, WireForms } from '../../src/surfaces/realtime/wire.ts';

/** ws's own framing and parsing (exported by the package, not declared in its types). */
const { Sender, Receiver } = ws as unknown as {
  Sender: { frame(data: Buffer, options: Record<string, unknown>): Buffer[] };
  Receiver: new (
    options: Record<string, unknown>,
  ) => NodeJS.WritableStream & {
    on(event: 'message', listener: (data: Buffer) => void): void;
  };
};

/**
 * The gateway writes each server frame to every socket in a form it builds once (`wireForm`), not through
 * `ws`'s sender: it must be the bytes `ws` itself would send, at each of the three length encodings, and
 * a stock `ws` receiver must read it back.
 */
describe('wireForm', () => {
  for (const length of [0, 125, 126, 65_535, 65_536, 200_000]) {
    test(`a text frame of ${length} bytes is what ws sends, and ws reads it back`, async () => {
      const payload = Buffer.from(JSON.stringify({ type: 'x', pad: 'é'.repeat(length) })).subarray(0, length);
      const forms = new WireForms();
      const wire = forms.of(payload);
      const theirs = Buffer.concat(
        Sender.frame(payload, { fin: true, opcode: 1, mask: false, readOnly: false, rsv1: false }),
      );
      assert.ok(wire.equals(theirs), 'the same bytes as ws frames');
      assert.equal(forms.of(payload), wire, 'built once per frame');

      const receiver = new Receiver({ skipUTF8Validation: true, maxPayload: 0 });
      const received = new Promise<Buffer>((resolve) =>
        receiver.on('message', (data: Buffer) => resolve(Buffer.from(data))),
      );
      receiver.write(wire);
      assert.ok((await received).equals(payload));
    });
  }
});

/**
 * A `joined` frame carrying a room's member list (RawJson, shared by a crowd's frames) is written as its
 * header and parts (Connection.sendParts), not copied into one buffer per connection: the parts joined are
 * the frame `encodeFrame` makes, and the header with them is what ws sends, at each length encoding.
 */
describe('a frame written in parts', () => {
  for (const members of [0, 1, 400, 5_000]) {
    test(`a joined frame with ${members} members: header and parts are the frame ws would send`, async () => {
      const list = RawJson.of(
        Array.from({ length: members }, (_, i) => ({ actor: { id: `bench:user-${i}` } })),
      );
      const frame = { type: 'joined', room: 'lobby', members: list, seq: 3, ref: 'r1' };
      const parts = encodeFrameParts(frame);
      assert.ok(parts.includes(list.bytes), 'the shared list is one of the parts, not a copy');
      const payload = Buffer.concat(parts);
      assert.ok(payload.equals(encodeFrame(frame)), 'the same bytes as the frame encoded whole');
      assert.deepEqual(JSON.parse(payload.toString()), {
        type: 'joined',
        room: 'lobby',
        members: JSON.parse(list.bytes.toString()),
        seq: 3,
        ref: 'r1',
      });
      const wire = Buffer.concat([frameHeader(payload.length), ...parts]);
      const theirs = Buffer.concat(
        Sender.frame(payload, { fin: true, opcode: 1, mask: false, readOnly: false, rsv1: false }),
      );
      assert.ok(wire.equals(theirs), `the bytes ws sends (${payload.length} bytes of payload)`);
      const receiver = new Receiver({ skipUTF8Validation: true, maxPayload: 0 });
      const received = new Promise<Buffer>((resolve) =>
        receiver.on('message', (data: Buffer) => resolve(Buffer.from(data))),
      );
      receiver.write(wire);
      assert.ok((await received).equals(payload));
    });
  }
});
