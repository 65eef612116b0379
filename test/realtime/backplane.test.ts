import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.ts';
import { createRealtimeBackplane, type RealtimeBackplane } from '../../src/core/realtime/backplane.ts';
import type { JsonObject } from '../../src/core/realtime/json.ts';
import { roomChannel, roomKey } from '../../src/core/realtime/names.ts';
import { presenceTimings } from '../../src/core/realtime/presence.ts';
import { eventually } from '../support/eventually.ts';
import { deleteKeys, redisUrl, skipFor } from './backends.ts';

async function roundTrip(backplane: RealtimeBackplane): Promise<void> {
  const room = roomChannel('ten_one', 'room_one');
  const received: JsonObject[] = [];
  const unsubscribe = await backplane.pubsub.subscribe(room, (message) => received.push(message));
  await backplane.pubsub.publish(room, { hello: 'world' });
  await eventually('own message', () => received.length > 0, { stepMs: 10, timeoutMs: 10_000 });
  assert.deepEqual(received, [{ hello: 'world' }]);
  unsubscribe();
  const { joined } = await backplane.presence.join(roomKey('ten_one', 'room_one'), 'act_ann', 'conn-1');
  assert.equal(joined, true);
}

describe('createRealtimeBackplane', () => {
  test('without REDIS_URL it runs in memory', async () => {
    const backplane = await createRealtimeBackplane({ redisUrl: undefined }, new ManualClock());
    try {
      assert.equal(backplane.kind, 'memory');
      assert.match(backplane.instanceId, /^inst_/);
      await roundTrip(backplane);
    } finally {
      await backplane.close();
    }
  });

  test('with REDIS_URL it runs on Redis', { skip: skipFor('redis') }, async () => {
    const prefix = `svc-test:${randomUUID()}:`;
    const backplane = await createRealtimeBackplane({ redisUrl }, new ManualClock(), { redisPrefix: prefix });
    try {
      assert.equal(backplane.kind, 'redis');
      await roundTrip(backplane);
      assert.equal(await backplane.presence.leave(roomKey('ten_one', 'room_one'), 'act_ann', 'conn-1'), true);
    } finally {
      await backplane.close();
      await deleteKeys(redisUrl ?? '', prefix);
    }
  });
});

describe('realtime names and timings', () => {
  test('room keys carry the tenant and refuse separators and empty parts', () => {
    assert.equal(roomKey('ten_01abc', 'room_01xyz'), 't:ten_01abc:room:room_01xyz');
    assert.equal(roomChannel('ten_a', 'room_b'), 't:ten_a:room:room_b');
    assert.throws(() => roomKey('ten_a:room:x', 'room_b'), RangeError);
    assert.throws(() => roomKey('ten_a', ''), RangeError);
    assert.throws(() => roomKey('ten_a', 'room b'), RangeError);
  });

  test('presence timings keep the announced-leave bound within the TTL', () => {
    const { beatEveryMs, aliveForMs, sweepEveryMs } = presenceTimings(30_000);
    assert.deepEqual(
      { beatEveryMs, aliveForMs, sweepEveryMs },
      { beatEveryMs: 5000, aliveForMs: 20_000, sweepEveryMs: 5000 },
    );
    assert.ok(aliveForMs + sweepEveryMs <= 30_000);
    assert.ok(aliveForMs >= 3 * beatEveryMs, 'survives missed heartbeats');
    assert.throws(() => presenceTimings(10), RangeError);
  });
});
