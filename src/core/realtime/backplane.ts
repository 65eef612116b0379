import { randomUUID } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { Clock } from '../clock.ts';
import { type ErrorReporter, ignoreErrors } from './listeners.ts';
import { MemoryPresence } from './memory-presence.ts';
import { MemoryPubSub } from './memory-pubsub.ts';
import { DEFAULT_PRESENCE_TTL_MS, type PresenceStore } from './presence.ts';
import type { PubSub } from './pubsub.ts';

export interface RealtimeBackplane {
  kind: 'memory' | 'redis';
  /** Identifies this process in presence records and Redis CLIENT LIST. */
  instanceId: string;
  pubsub: PubSub;
  /** Already heartbeating and sweeping. */
  presence: PresenceStore;
  /** Resolves when the backplane can serve (Redis answers); rejects with `service_unavailable`. */
  ready(): Promise<void>;
  /**
   * Whether the backplane can carry a message right now (every Redis connection is up; always in memory).
   * While it cannot, realtime frames that need it are refused at once with `service_unavailable`.
   */
  connected(): boolean;
  close(): Promise<void>;
}

export interface BackplaneOptions {
  instanceId?: string;
  /** Prefix of every Redis key and channel; the default `svc:` gives channels like `svc:t:…:room:…`. */
  redisPrefix?: string;
  /** A dead instance's members are announced as left within this many ms (real time on Redis). */
  presenceTtlMs?: number;
  /** Where connection and listener failures go (the service logger); they are never thrown. */
  report?: ErrorReporter;
  /** How long to wait for Redis to answer before refusing to start (default REDIS_START_WAIT_MS). */
  redisStartWaitMs?: number;
}

/**
 * In-memory pub/sub and presence when REDIS_URL is unset (one instance), Redis-backed ones when set (the
 * Redis client is loaded only then). With REDIS_URL, Redis must answer within a few seconds or this
 * rejects with `RedisUnreachableAtStart`, which names REDIS_URL: the service refuses to start rather than
 * hang (docs/operations.md).
 */
export async function createRealtimeBackplane(
  config: Pick<Config, 'redisUrl'>,
  clock: Clock,
  options: BackplaneOptions = {},
): Promise<RealtimeBackplane> {
  const instanceId = options.instanceId ?? `inst_${randomUUID()}`;
  const report = options.report ?? ignoreErrors;
  const ttlMs = options.presenceTtlMs ?? DEFAULT_PRESENCE_TTL_MS;
  let pubsub: PubSub;
  let presence: PresenceStore;
  let ready: () => Promise<void>;
  let connected: () => boolean;
  if (config.redisUrl === undefined) {
    pubsub = new MemoryPubSub(undefined, report);
    presence = new MemoryPresence({ instanceId, clock, ttlMs, report });
    ready = async () => {};
    connected = () => true;
  } else {
    const [{ RedisPubSub }, { RedisPresence }, { waitForRedis }] = await Promise.all([
      import('./redis-pubsub.ts'),
      import('./redis-presence.ts'),
      import('./redis-start.ts'),
    ]);
    const prefix = options.redisPrefix ?? 'svc:';
    const url = config.redisUrl;
    await waitForRedis(url, options.redisStartWaitMs);
    const redisPubsub = new RedisPubSub({ url, prefix, instanceId, report });
    const redisPresence = new RedisPresence({ url, prefix, instanceId, clock, ttlMs, report });
    pubsub = redisPubsub;
    presence = redisPresence;
    ready = async () => {
      await Promise.all([redisPubsub.ping(), redisPresence.ping()]);
    };
    connected = () => redisPubsub.connected() && redisPresence.connected();
  }
  presence.start();
  return {
    kind: config.redisUrl === undefined ? 'memory' : 'redis',
    instanceId,
    pubsub,
    presence,
    ready,
    connected,
    async close() {
      await Promise.all([presence.close(), pubsub.close()]);
    },
  };
}
