import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { redisFailureCounts } from '../../src/core/auth/failure-counts-redis.ts';
import {
  FailureLimiter,
  MAX_BLOCKED,
  MAX_COUNTING,
  type SharedFailureCounts,
} from '../../src/core/auth/failure-limiter.ts';
import { ManualClock } from '../../src/core/clock.ts';
import { MemoryBroker, MemoryPubSub } from '../../src/core/realtime/memory-pubsub.ts';
import { bearer, createTestTenant } from '../factories.ts';
import { buildTestApp, call } from '../helper.ts';
import { eventually } from '../support/eventually.ts';

const WINDOW_MS = 60_000;

/** Shared counts for two limiters in one process, as Redis gives them to instances (window per key). */
function memoryCounts(clock: ManualClock): SharedFailureCounts {
  const counts = new Map<string, { count: number; until: number }>();
  return {
    async add(address, windowMs) {
      const now = clock.now();
      let entry = counts.get(address);
      if (entry === undefined || entry.until <= now) entry = { count: 0, until: now + windowMs };
      entry.count += 1;
      counts.set(address, entry);
      return { count: entry.count, leftMs: entry.until - now };
    },
    async close() {},
  };
}

describe('the failed-credential limiter', () => {
  test('a blocked address stays blocked while 200,000 other addresses fail, and memory stays bounded', () => {
    const clock = new ManualClock();
    const limiter = new FailureLimiter(3, WINDOW_MS, clock);
    for (let i = 0; i < 3; i++) limiter.recordFailure('198.51.100.1');
    assert.ok(limiter.retryAfterSeconds('198.51.100.1') > 0);
    clock.advance(1000);
    for (let i = 0; i < 200_000; i++)
      limiter.recordFailure(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    const { counting, blocked } = limiter.size();
    assert.ok(counting <= MAX_COUNTING, `${counting} addresses counted`);
    assert.ok(blocked <= MAX_BLOCKED);
    assert.equal(limiter.retryAfterSeconds('198.51.100.1'), 59, 'still blocked, for the rest of its window');
    clock.advance(59_000);
    assert.equal(limiter.retryAfterSeconds('198.51.100.1'), 0, 'free once the window ends');
  });

  test('an address that keeps failing is not forgotten behind a flood of one-time failures', () => {
    const clock = new ManualClock();
    const limiter = new FailureLimiter(5, WINDOW_MS, clock);
    for (let round = 0; round < 4; round++) {
      limiter.recordFailure('198.51.100.2');
      for (let i = 0; i < MAX_COUNTING / 4; i++) limiter.recordFailure(`10.9.${round}.${i}`);
    }
    limiter.recordFailure('198.51.100.2');
    assert.ok(limiter.retryAfterSeconds('198.51.100.2') > 0);
  });

  test('instances sharing counts block an address that failed on each of them', async () => {
    const clock = new ManualClock();
    const broker = new MemoryBroker();
    const redisUrl = process.env.REDIS_URL;
    const redis = redisUrl === undefined ? undefined : [new Redis(redisUrl), new Redis(redisUrl)];
    const prefix = `svc-test:${randomUUID()}:failures:`;
    const shared = memoryCounts(clock);
    const counts = (i: 0 | 1) => {
      const client = redis?.[i];
      return client === undefined ? shared : redisFailureCounts(client, prefix);
    };
    const errors: unknown[] = [];
    const limiters = ([0, 1] as const).map(
      (i) =>
        new FailureLimiter(4, WINDOW_MS, clock, {
          counts: counts(i),
          pubsub: new MemoryPubSub(broker),
          report: (error) => errors.push(error),
        }),
    );
    const [a, b] = limiters;
    assert.ok(a !== undefined && b !== undefined);
    await Promise.all(limiters.map((l) => l.start()));
    try {
      a.recordFailure('203.0.113.77');
      a.recordFailure('203.0.113.77');
      b.recordFailure('203.0.113.77');
      assert.equal(a.retryAfterSeconds('203.0.113.77'), 0, 'three failures: not yet');
      b.recordFailure('203.0.113.77');
      await eventually('both instances to block the address', () =>
        a.retryAfterSeconds('203.0.113.77') > 0 && b.retryAfterSeconds('203.0.113.77') > 0 ? true : undefined,
      );
      assert.deepEqual(errors, []);
    } finally {
      await Promise.all(limiters.map((l) => l.stop()));
    }
  });
});

describe('SVC_TRUST_PROXY', () => {
  const apps: { close(): Promise<void> }[] = [];
  after(async () => {
    await Promise.all(apps.map((a) => a.close()));
  });

  test('behind a trusted proxy the forwarded client is limited; an untrusted peer’s header is ignored', async () => {
    const t = await buildTestApp({ config: { authFailureLimit: 2, trustProxy: ['192.0.2.10'] } });
    apps.push(t);
    const tenant = await createTestTenant(t);
    const me = (remoteAddress: string, forwardedFor: string, key = 'svc_live_wrong') =>
      call(t.app, {
        method: 'GET',
        url: '/v1/me',
        remoteAddress,
        headers: { ...bearer(key), 'x-forwarded-for': forwardedFor },
      });

    // Through the proxy: two clients, told apart by X-Forwarded-For.
    await me('192.0.2.10', '203.0.113.1');
    await me('192.0.2.10', '203.0.113.1');
    assert.equal((await me('192.0.2.10', '203.0.113.1', tenant.apiKey)).statusCode, 429);
    assert.equal((await me('192.0.2.10', '203.0.113.2', tenant.apiKey)).statusCode, 200);

    // Not the proxy: its X-Forwarded-For is not believed, so changing it does not escape the limit.
    await me('198.51.100.9', '203.0.113.3');
    await me('198.51.100.9', '203.0.113.4');
    assert.equal((await me('198.51.100.9', '203.0.113.5', tenant.apiKey)).statusCode, 429);
  });
});
