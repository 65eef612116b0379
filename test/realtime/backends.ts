import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { type Clock, ManualClock, systemClock } from '../../src/core/clock.ts';
import { MemoryPresence } from '../../src/core/realtime/memory-presence.ts';
import { MemoryPresenceHub } from '../../src/core/realtime/memory-presence-hub.ts';
import { MemoryBroker, MemoryPubSub } from '../../src/core/realtime/memory-pubsub.ts';
import type { PresenceStore } from '../../src/core/realtime/presence.ts';
import type { PubSub } from '../../src/core/realtime/pubsub.ts';
import { RedisPresence } from '../../src/core/realtime/redis-presence.ts';
import { RedisPubSub } from '../../src/core/realtime/redis-pubsub.ts';

export const redisUrl = process.env.REDIS_URL;

export type BackendKind = 'memory' | 'redis';
export const BACKEND_KINDS: BackendKind[] = ['memory', 'redis'];

/** The skip option for a suite: Redis suites run only where REDIS_URL is set (CI sets it). */
export function skipFor(kind: BackendKind): string | false {
  return kind === 'redis' && redisUrl === undefined ? 'REDIS_URL not set' : false;
}

/** Records what the stores report instead of throwing it, so tests can assert nothing went wrong. */
export class ErrorLog {
  readonly errors: { error: unknown; context: string }[] = [];
  readonly report = (error: unknown, context: string): void => {
    this.errors.push({ error, context });
  };
}

/**
 * One simulated deployment: every pub/sub or presence store made here is one app instance on a shared
 * backplane (one broker/hub in memory, one Redis under a prefix unique to this backend).
 */
export interface Backend {
  kind: BackendKind;
  prefix: string;
  errors: ErrorLog;
  pubsub(instanceId: string): PubSub;
  presence(instanceId: string, ttlMs?: number): PresenceStore;
  /** The manual clock the stores take their timestamps from. */
  now(): number;
  /** Lets `ms` pass: the manual clock moves (both kinds) and, on Redis, real time too (its TTLs are real). */
  tick(ms: number): Promise<void>;
  /** Closes everything made here and deletes this backend's Redis keys. */
  close(): Promise<void>;
}

export const TEST_TTL_MS = 1200;

/** Timestamps stay deterministic (manual now) while Redis-backed loops still run on real timers. */
function realTimersManualNow(clock: ManualClock): Clock {
  return { now: () => clock.now(), setTimeout: (fn, ms) => systemClock.setTimeout(fn, ms) };
}

export function makeBackend(kind: BackendKind): Backend {
  const clock = new ManualClock();
  const errors = new ErrorLog();
  const prefix = `svc-test:${randomUUID()}:`;
  const closers: (() => Promise<void>)[] = [];
  const track = <T extends { close(): Promise<void> }>(item: T): T => {
    closers.push(() => item.close());
    return item;
  };
  const broker = new MemoryBroker();
  const hub = new MemoryPresenceHub();
  const url = redisUrl ?? 'redis://127.0.0.1:6379';
  return {
    kind,
    prefix,
    errors,
    pubsub(instanceId) {
      if (kind === 'memory') return track(new MemoryPubSub(broker, errors.report));
      return track(new RedisPubSub({ url, prefix, instanceId, report: errors.report }));
    },
    presence(instanceId, ttlMs = TEST_TTL_MS) {
      if (kind === 'memory') {
        return track(new MemoryPresence({ instanceId, hub, clock, ttlMs, report: errors.report }));
      }
      const storeClock = realTimersManualNow(clock);
      return track(
        new RedisPresence({ url, prefix, instanceId, clock: storeClock, ttlMs, report: errors.report }),
      );
    },
    now: () => clock.now(),
    async tick(ms) {
      clock.advance(ms);
      // Loops re-arm after their async run settles; real time lets those settle (and Redis TTLs run).
      if (kind === 'redis') await sleep(ms);
      else await new Promise((resolve) => setImmediate(resolve));
    },
    async close() {
      await Promise.all(closers.map((close) => close()));
      if (kind === 'redis') await deleteKeys(url, prefix);
    },
  };
}

/** Deletes every key under a test prefix. */
export async function deleteKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
