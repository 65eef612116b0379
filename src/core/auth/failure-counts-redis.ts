import type { Redis } from 'ioredis';
import type { ErrorReporter } from '../realtime/index.ts';
import { closeRedis, openRedis } from '../realtime/redis-connection.ts';
import type { SharedFailureCounts } from './failure-limiter.ts';

// Apart from failure-limiter.ts so that the Redis client is loaded only when REDIS_URL is set.

/** Failure counts in Redis: one key per address, expiring with its window. */
export function redisFailureCounts(redis: Redis, prefix: string): SharedFailureCounts {
  const script = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}`;
  return {
    async add(address, windowMs) {
      const answer = await redis.eval(script, 1, `${prefix}${address}`, windowMs);
      const [count, leftMs] = Array.isArray(answer) ? answer.map(Number) : [0, 0];
      return { count: count ?? 0, leftMs: Math.max(0, leftMs ?? 0) };
    },
    close: () => closeRedis(redis),
  };
}

/**
 * The counts every instance shares, on a connection of their own, keyed under `<prefix><namespace>`:
 * `auth:failures:` for failed authentications, `product-keys:requests:` for the product-key request limit.
 */
export function openRedisFailureCounts(
  url: string,
  prefix: string,
  report: ErrorReporter,
  namespace = 'auth:failures:',
): SharedFailureCounts {
  const name = `svc-${namespace.replaceAll(':', '-').replace(/-$/, '')}`;
  return redisFailureCounts(openRedis(url, name, report), `${prefix}${namespace}`);
}
