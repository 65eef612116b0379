import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BackplaneEventBus, type EventOrigin } from '../../src/core/events/bus.ts';
import type { TenantEvent } from '../../src/core/events/types.ts';
import { type BackgroundWorker, WAKE_CHANNEL, Workers } from '../../src/core/modules/hooks.ts';
import type { JsonObject } from '../../src/core/realtime/index.ts';
import { MemoryBroker, MemoryPubSub } from '../../src/core/realtime/memory-pubsub.ts';

/**
 * The core's cross-instance facilities on an in-memory broker (what Redis is between instances): worker
 * wakes and broadcast events. The multi-instance suites run them on Redis with real workers.
 */

interface FakeWorker extends BackgroundWorker {
  wakes: number;
  capacity: boolean;
}

function fakeWorker(capacity: boolean): FakeWorker {
  const worker: FakeWorker = {
    wakes: 0,
    capacity,
    start() {},
    async stop() {},
    wake() {
      worker.wakes += 1;
    },
    hasCapacity: () => worker.capacity,
  };
  return worker;
}

/** Everything the broker has queued so far has been handed out (it delivers in microtasks, in order). */
async function settle(pubsub: MemoryPubSub): Promise<void> {
  let received = false;
  const unsubscribe = await pubsub.subscribe('settle', () => {
    received = true;
  });
  await pubsub.publish('settle', {});
  while (!received) await new Promise((resolve) => setImmediate(resolve));
  unsubscribe();
}

async function instance(broker: MemoryBroker, name: string, worker?: FakeWorker) {
  const pubsub = new MemoryPubSub(broker);
  const errors: unknown[] = [];
  const workers = new Workers({ pubsub, instanceId: name, report: (error) => errors.push(error) });
  if (worker !== undefined) workers.add('jobs', worker);
  await workers.start();
  return { pubsub, workers, errors };
}

describe('worker wakes across instances', () => {
  test('an instance without the worker wakes the others; one with room to spare keeps the work', async () => {
    const broker = new MemoryBroker();
    const onB = fakeWorker(true);
    const onC = fakeWorker(true);
    const a = await instance(broker, 'a');
    const b = await instance(broker, 'b', onB);
    await instance(broker, 'c', onC);

    a.workers.wake('jobs');
    await settle(a.pubsub);
    assert.deepEqual([onB.wakes, onC.wakes], [1, 1], 'A runs no worker: every other instance is woken');

    b.workers.wake('jobs');
    await settle(b.pubsub);
    assert.deepEqual([onB.wakes, onC.wakes], [2, 1], 'B has room: only its own worker is woken');

    onB.capacity = false;
    b.workers.wake('jobs');
    await settle(b.pubsub);
    assert.deepEqual([onB.wakes, onC.wakes], [3, 2], 'B is full: C is woken too, B not twice');
    assert.deepEqual([...a.errors, ...b.errors], []);
  });

  test('wakes asked for while one is being sent coalesce into one more', async () => {
    const broker = new MemoryBroker();
    const a = await instance(broker, 'a');
    const listener = new MemoryPubSub(broker);
    const heard: JsonObject[] = [];
    await listener.subscribe(WAKE_CHANNEL, (message) => {
      heard.push(message);
    });
    for (let i = 0; i < 10; i++) a.workers.wake('jobs');
    await settle(a.pubsub);
    await settle(a.pubsub);
    assert.deepEqual(heard, [
      { module: 'jobs', from: 'a' },
      { module: 'jobs', from: 'a' },
    ]);
  });

  test('a stopped instance no longer hears wakes', async () => {
    const broker = new MemoryBroker();
    const onB = fakeWorker(true);
    const a = await instance(broker, 'a');
    const b = await instance(broker, 'b', onB);
    await b.workers.stop({ graceMs: 0 });
    a.workers.wake('jobs');
    await settle(a.pubsub);
    assert.equal(onB.wakes, 0);
  });
});

const event: TenantEvent = {
  id: 'evt_01jh0000000000000000000000',
  tenantId: 'ten_01jh0000000000000000000000',
  type: 'webhook.delivery.dead_lettered',
  data: { deliveryId: 'whd_1', attempts: 6, lastStatusCode: null, nested: { ok: true } },
  createdAt: '2026-01-05T10:00:00.000Z',
  trace: { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), requestId: 'webhook-worker', origin: 'system' },
};

describe('broadcast events', () => {
  test("a broadcast reaches every instance's subscribers once; a publish only its own", async () => {
    const broker = new MemoryBroker();
    const errors: unknown[] = [];
    const buses = await Promise.all(
      ['a', 'b'].map((name) =>
        BackplaneEventBus.open(new MemoryPubSub(broker), name, (error) => errors.push(error)),
      ),
    );
    const heard = buses.map(() => [] as { id: string; origin: EventOrigin }[]);
    for (const [i, bus] of buses.entries()) {
      bus.subscribe((e, origin) => heard[i]?.push({ id: e.id, origin }));
    }
    const [a, b] = buses;
    a?.broadcast(event);
    a?.publish({ ...event, id: 'evt_local' });
    const probe = new MemoryPubSub(broker);
    await settle(probe);
    assert.deepEqual(heard, [
      [
        { id: event.id, origin: 'here' },
        { id: 'evt_local', origin: 'here' },
      ],
      [{ id: event.id, origin: 'elsewhere' }],
    ]);
    const received: TenantEvent[] = [];
    b?.subscribe((e) => received.push(e));
    a?.broadcast(event);
    await settle(probe);
    assert.deepEqual(received, [event], 'the event arrives as it was sent');
    assert.deepEqual(errors, []);
    for (const bus of buses) await bus.close();
  });
});
