import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { JsonObject } from '../../src/core/realtime/json.ts';
import { roomChannel } from '../../src/core/realtime/names.ts';
import type { PubSub } from '../../src/core/realtime/pubsub.ts';
import { eventually } from '../support/eventually.ts';
import { BACKEND_KINDS, type Backend, makeBackend, skipFor } from './backends.ts';

/** Collects what one handler receives. */
function inbox(): { messages: JsonObject[]; handler: (message: JsonObject) => void } {
  const messages: JsonObject[] = [];
  return { messages, handler: (message) => messages.push(message) };
}

for (const kind of BACKEND_KINDS) {
  describe(`PubSub contract (${kind})`, { skip: skipFor(kind) }, () => {
    let backend: Backend;
    let instanceA: PubSub;
    let instanceB: PubSub;
    const room = roomChannel('ten_one', 'room_one');

    beforeEach(() => {
      backend = makeBackend(kind);
      instanceA = backend.pubsub('inst-a');
      instanceB = backend.pubsub('inst-b');
    });
    afterEach(async () => {
      assert.deepEqual(backend.errors.errors, []);
      await backend.close();
    });

    /** A last message both inboxes must see: anything duplicated would have arrived before it. */
    async function barrier(from: PubSub, ...boxes: { messages: JsonObject[] }[]): Promise<void> {
      const marker = { barrier: Math.random() };
      await from.publish(room, marker);
      await eventually(
        'barrier message',
        () => boxes.every((box) => box.messages.some((m) => m.barrier === marker.barrier)),
        { pause: (ms) => backend.tick(ms), timeoutMs: 10_000 },
      );
      for (const box of boxes)
        box.messages.splice(box.messages.findIndex((m) => m.barrier === marker.barrier));
    }

    test('delivers across two instances both ways, each instance exactly once', async () => {
      const onA = inbox();
      const onB = inbox();
      await instanceA.subscribe(room, onA.handler);
      await instanceB.subscribe(room, onB.handler);

      await instanceA.publish(room, { from: 'a' });
      await instanceB.publish(room, { from: 'b' });
      await eventually('both messages', () => onA.messages.length >= 2 && onB.messages.length >= 2, {
        pause: (ms) => backend.tick(ms),
        timeoutMs: 10_000,
      });
      await barrier(instanceA, onA, onB);

      // The publisher's own subscriber gets its publication once, not once locally and once via Redis.
      assert.deepEqual(onA.messages, [{ from: 'a' }, { from: 'b' }]);
      assert.deepEqual(onB.messages, [{ from: 'a' }, { from: 'b' }]);
    });

    test('several handlers on one instance each receive a message once', async () => {
      const first = inbox();
      const second = inbox();
      await instanceA.subscribe(room, first.handler);
      await instanceA.subscribe(room, second.handler);
      // The same function subscribed twice is two subscriptions: it is called twice per message.
      const twice = inbox();
      await instanceA.subscribe(room, twice.handler);
      await instanceA.subscribe(room, twice.handler);

      await instanceB.publish(room, { n: 1 });
      await barrier(instanceB, first, second);

      assert.deepEqual(first.messages, [{ n: 1 }]);
      assert.deepEqual(second.messages, [{ n: 1 }]);
      assert.deepEqual(twice.messages.slice(0, 2), [{ n: 1 }, { n: 1 }]);
    });

    test('keeps per-channel order under a burst from two publishers, the same order everywhere', async () => {
      const onA = inbox();
      const onB = inbox();
      await instanceA.subscribe(room, onA.handler);
      await instanceB.subscribe(room, onB.handler);

      const perPublisher = 300;
      const sends: Promise<void>[] = [];
      for (let seq = 0; seq < perPublisher; seq++) {
        sends.push(instanceA.publish(room, { from: 'a', seq }));
        sends.push(instanceB.publish(room, { from: 'b', seq }));
      }
      await Promise.all(sends);
      const total = perPublisher * 2;
      await eventually('burst', () => onA.messages.length >= total && onB.messages.length >= total, {
        pause: (ms) => backend.tick(ms),
        timeoutMs: 10_000,
      });
      await barrier(instanceA, onA, onB);

      for (const box of [onA, onB]) {
        assert.equal(box.messages.length, total);
        for (const from of ['a', 'b']) {
          const seqs = box.messages.filter((m) => m.from === from).map((m) => m.seq);
          assert.deepEqual(
            seqs,
            Array.from({ length: perPublisher }, (_, i) => i),
            `order of ${from}`,
          );
        }
      }
      assert.deepEqual(onA.messages, onB.messages);
    });

    test('an unsubscribed handler receives nothing more; other handlers keep receiving', async () => {
      const leaving = inbox();
      const staying = inbox();
      const watcher = inbox();
      const unsubscribe = await instanceA.subscribe(room, leaving.handler);
      await instanceA.subscribe(room, staying.handler);
      await instanceB.subscribe(room, watcher.handler);

      await instanceB.publish(room, { n: 1 });
      await barrier(instanceB, leaving, staying, watcher);
      unsubscribe();
      unsubscribe(); // idempotent
      await instanceB.publish(room, { n: 2 });
      await barrier(instanceB, staying, watcher);

      assert.deepEqual(leaving.messages, [{ n: 1 }]);
      assert.deepEqual(staying.messages, [{ n: 1 }, { n: 2 }]);
    });

    test('an instance whose last handler left stops receiving the channel, and can subscribe again', async () => {
      const once = inbox();
      const watcher = inbox();
      await instanceB.subscribe(room, watcher.handler);
      const unsubscribe = await instanceA.subscribe(room, once.handler);
      unsubscribe();
      await instanceB.publish(room, { n: 1 });
      await barrier(instanceB, watcher);
      assert.deepEqual(once.messages, []);

      const again = inbox();
      await instanceA.subscribe(room, again.handler);
      await instanceB.publish(room, { n: 2 });
      await barrier(instanceB, again, watcher);
      assert.deepEqual(again.messages, [{ n: 2 }]);
      assert.deepEqual(watcher.messages, [{ n: 1 }, { n: 2 }]);
    });

    test('rooms are separate channels, also for the same room id in another tenant', async () => {
      const otherTenant = roomChannel('ten_two', 'room_one');
      const here = inbox();
      const there = inbox();
      await instanceA.subscribe(room, here.handler);
      await instanceA.subscribe(otherTenant, there.handler);

      await instanceB.publish(otherTenant, { to: 'two' });
      await instanceB.publish(room, { to: 'one' });
      await eventually('both rooms', () => here.messages.length > 0 && there.messages.length > 0, {
        pause: (ms) => backend.tick(ms),
        timeoutMs: 10_000,
      });
      await barrier(instanceB, here);

      assert.deepEqual(here.messages, [{ to: 'one' }]);
      assert.deepEqual(there.messages, [{ to: 'two' }]);
    });

    test('a throwing handler is reported and does not stop the other handlers', async () => {
      const after = inbox();
      await instanceA.subscribe(room, (message) => {
        if (message.n === 1) throw new Error('handler bug');
      });
      await instanceA.subscribe(room, after.handler);
      await instanceB.publish(room, { n: 1 });
      await barrier(instanceB, after);

      assert.deepEqual(after.messages, [{ n: 1 }]);
      assert.equal(backend.errors.errors.length, 1);
      assert.match(String(backend.errors.errors[0]?.error), /handler bug/);
      backend.errors.errors.length = 0;
    });

    test('subscribers get a decoded copy, never the publisher object', async () => {
      const received = inbox();
      await instanceA.subscribe(room, received.handler);
      const sent = { nested: { list: [1, 'two', null, { deep: true }] }, text: 'ü/\u2028' };
      await instanceA.publish(room, sent);
      await barrier(instanceA, received);
      assert.deepEqual(received.messages, [sent]);
      assert.notEqual(received.messages[0], sent);
    });

    test('a closed instance refuses to publish or subscribe', async () => {
      await instanceA.close();
      await assert.rejects(instanceA.publish(room, { n: 1 }), { name: 'PubSubClosedError' });
      await assert.rejects(
        instanceA.subscribe(room, () => {}),
        { name: 'PubSubClosedError' },
      );
    });
  });
}
