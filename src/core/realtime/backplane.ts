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
}

/**
 * In-memory pub/sub and presence when REDIS_URL is unset (one instance), Redis-backed ones when set (the
 * Redis client is loaded only then).
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
  if (config.redisUrl === undefined) {
    pubsub = new MemoryPubSub(undefined, report);
    presence = new MemoryPresence({ instanceId, clock, ttlMs, report });
    ready = async () => {};
  } else {
    const [{ RedisPubSub }, { RedisPresence }] = await Promise.all([
      import('./redis-pubsub.ts'),
      import('./redis-presence.ts'),
    ]);
    const prefix = options.redisPrefix ?? 'svc:';
    const url = config.redisUrl;
    const redisPubsub = new RedisPubSub({ url, prefix, instanceId, report });
    const redisPresence = new RedisPresence({ url, prefix, instanceId, clock, ttlMs, report });
    pubsub = redisPubsub;
    presence = redisPresence;
    ready = async () => {
      await Promise.all([redisPubsub.ping(), redisPresence.ping()]);
    };
  }
  presence.start();
  return {
    kind: config.redisUrl === undefined ? 'memory' : 'redis',
    instanceId,
    pubsub,
    presence,
    ready,
    async close() {
      await Promise.all([presence.close(), pubsub.close()]);
    },
  };
}
