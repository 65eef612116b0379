import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RealtimeHost } from '../../src/core/realtime/contributions.ts';
import type { JsonObject } from '../../src/core/realtime/json.ts';
import { MemoryPubSub } from '../../src/core/realtime/memory-pubsub.ts';
import { roomChannel } from '../../src/core/realtime/names.ts';
import { FanOutPacer } from '../../src/surfaces/realtime/fan-out-pacer.ts';
import { LocalRoom } from '../../src/surfaces/realtime/local-room.ts';
import { eventually } from '../support/eventually.ts';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A burst of room messages (a crowd's joins announced to the room, all parsed from one Redis read or
 * queued as microtasks in memory) is spread over turns of the event loop: between turns, I/O (other
 * tenants' requests) is served. Order within the room is kept.
 */
describe('room fan-out takes turns with other work', () => {
  test('a burst of 50 messages is handled a few per turn, all of them, in order', async () => {
    const pubsub = new MemoryPubSub();
    const handled: number[] = [];
    // Only the module hooks use the host; this module's room needs none of it.
    const host = {} as RealtimeHost;
    const room = new LocalRoom('ten_a', 'room_a', {
      host,
      pubsub,
      modules: {
        handlers: [
          {
            module: 'echo',
            hooks: {
              roomMessages: ['echo'],
              room: () => ({
                receive: (_kind: string, payload: JsonObject) => handled.push(Number(payload.n)),
              }),
            },
          },
        ],
        moduleOfEvent: () => undefined,
        resetEvents: new Set(),
      },
      report: (error) => assert.fail(String(error)),
      pacer: new FanOutPacer(5),
    });
    await room.open();
    await nextTurn();

    for (let n = 0; n < 50; n++) void pubsub.publish(roomChannel('ten_a', 'room_a'), { k: 'echo', n });
    // The broker delivers every message in microtasks of this turn; the room handles only its budget.
    await Promise.resolve();
    await Promise.resolve();
    assert.ok(handled.length <= 5, `handled ${handled.length} messages in the turn they arrived`);

    await eventually('every message handled', () => handled.length === 50);
    assert.deepEqual(
      handled,
      Array.from({ length: 50 }, (_, n) => n),
    );
    room.close();
    await pubsub.close();
  });

  test('a turn with its budget spent waits for the next one', async () => {
    const pacer = new FanOutPacer(10);
    assert.equal(pacer.take(8), true);
    assert.equal(pacer.take(8), true, 'a turn with room left takes one more, even past its budget');
    assert.equal(pacer.take(1), false);
    let later = false;
    const waited = pacer.turn(1).then(() => {
      later = true;
    });
    assert.equal(later, false);
    await waited;
    assert.equal(pacer.take(1), true);
  });
});
