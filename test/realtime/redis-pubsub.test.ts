import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import type { JsonObject } from '../../src/core/realtime/json.ts';
import { roomChannel } from '../../src/core/realtime/names.ts';
import { eventually } from '../support/eventually.ts';
import { type Backend, makeBackend, redisUrl, skipFor } from './backends.ts';

/** Redis-only behaviour: the wire names and surviving a dropped subscriber connection. */
describe('RedisPubSub', { skip: skipFor('redis') }, () => {
  let backend: Backend;
  let admin: Redis;
  const room = roomChannel('ten_one', 'room_one');

  beforeEach(() => {
    backend = makeBackend('redis');
    admin = new Redis(redisUrl ?? '');
  });
  afterEach(async () => {
    admin.disconnect();
    await backend.close();
  });

  async function subscriberCount(channel: string): Promise<number> {
    const reply = await admin.pubsub('NUMSUB', channel);
    return Number(reply[1]);
  }

  test('subscribes to <prefix>t:<tenant>:room:<room> and leaves it when the last handler goes', async () => {
    const instance = backend.pubsub('inst-a');
    const wire = `${backend.prefix}t:ten_one:room:room_one`;
    const first = await instance.subscribe(room, () => {});
    const second = await instance.subscribe(room, () => {});
    assert.equal(await subscriberCount(wire), 1, 'one Redis subscription per instance and channel');
    first();
    assert.equal(await subscriberCount(wire), 1);
    second();
    await eventually('unsubscribed on Redis', async () => (await subscriberCount(wire)) === 0, {
      pause: (ms) => backend.tick(ms),
      timeoutMs: 10_000,
    });
  });

  test('resubscribes after the subscriber connection drops, and reports the delivery gap', async () => {
    const instanceName = `inst-${randomUUID()}`;
    const instanceA = backend.pubsub(instanceName);
    const instanceB = backend.pubsub('inst-b');
    const received: JsonObject[] = [];
    let gaps = 0;
    instanceA.onDeliveryGap(() => {
      gaps++;
    });
    await instanceA.subscribe(room, (message) => received.push(message));

    const clients = String(await admin.client('LIST'));
    const subscriberId = new RegExp(`id=(\\d+) [^\\n]*name=${instanceName}:sub(\\s|$)`).exec(clients)?.[1];
    assert.ok(subscriberId, 'the subscriber connection is named after its instance');
    // Other test runs may share the server; the unique name makes this kill exactly our connection.
    await admin.client('KILL', 'ID', subscriberId);

    await eventually('delivery gap reported', () => gaps === 1, {
      pause: (ms) => backend.tick(ms),
      timeoutMs: 10_000,
    });
    await instanceB.publish(room, { after: 'reconnect' });
    await eventually('message after reconnect', () => received.length > 0, {
      pause: (ms) => backend.tick(ms),
      timeoutMs: 10_000,
    });
    assert.deepEqual(received, [{ after: 'reconnect' }]);
  });

  test('a foreign non-JSON payload on a subscribed channel is reported and skipped', async () => {
    const instance = backend.pubsub('inst-a');
    const received: JsonObject[] = [];
    await instance.subscribe(room, (message) => received.push(message));
    await admin.publish(`${backend.prefix}${room}`, 'not json');
    await admin.publish(`${backend.prefix}${room}`, JSON.stringify({ ok: true }));
    await eventually('the valid message', () => received.length > 0, {
      pause: (ms) => backend.tick(ms),
      timeoutMs: 10_000,
    });
    assert.deepEqual(received, [{ ok: true }]);
    assert.equal(backend.errors.errors.length, 1);
  });
});
