import { Redis, type RedisOptions, ReplyError } from 'ioredis';
import { ServiceUnavailable } from '../http/errors.ts';
import type { ErrorReporter } from './listeners.ts';

/**
 * How long a command may wait for Redis (queued while disconnected, or sent to a server that does not
 * answer). Real time on purpose: this bounds a network wait, so a request fails with 503 instead of hanging.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 2000;

/**
 * One named connection (the name shows in CLIENT LIST, which is how operators find an instance's links).
 * Until it first connects, commands wait for it (bounded by the command timeout); from then on, while the
 * connection is down, a command fails at once (no offline queue) instead of waiting for Redis to come
 * back, so a request or a frame is answered `service_unavailable` without delay. The connection itself
 * keeps reconnecting; the first error of each outage is reported, not every reconnection attempt.
 */
export function openRedis(
  url: string,
  name: string,
  report: ErrorReporter,
  options: RedisOptions = {},
): Redis {
  const redis = new Redis(url, {
    connectionName: name,
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    ...options,
  });
  let reported = false;
  redis.on('ready', () => {
    redis.options.enableOfflineQueue = false;
    reported = false;
  });
  // Without a listener ioredis stays silent; with one, connection trouble reaches the service's log.
  redis.on('error', (error: unknown) => {
    if (redis.status !== 'ready') {
      if (reported) return;
      reported = true;
    }
    report(error, `redis connection ${name} (REDIS_URL)`);
  });
  return redis;
}

/** Whether the connection is up now; false while it (re)connects. */
export function redisConnected(redis: Redis): boolean {
  return redis.status === 'ready';
}

const QUIT_GRACE_MS = 1000;

/** QUIT flushes what is queued; if Redis is unreachable that could wait forever, so cut it short. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  if (redis.status !== 'ready') {
    redis.disconnect();
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    // Real time on purpose: this bounds a network wait, not a business schedule.
    timer = setTimeout(resolve, QUIT_GRACE_MS);
  });
  await Promise.race([
    redis.quit().then(
      () => undefined,
      () => undefined,
    ),
    deadline,
  ]);
  clearTimeout(timer);
  redis.disconnect();
}

/**
 * A Redis failure as the API reports it: an answer Redis gave (a script error) is a bug and stays as it
 * is; no answer (unreachable, closed, timed out) is an outage, 503 `service_unavailable`.
 */
export function redisFailure(error: unknown): unknown {
  if (error instanceof ReplyError) return error;
  return new ServiceUnavailable('Redis does not answer', { cause: error });
}

/** PING with the connection's bounds; rejects with `service_unavailable` when Redis does not answer. */
export async function pingRedis(redis: Redis): Promise<void> {
  try {
    await redis.ping();
  } catch (error) {
    throw redisFailure(error);
  }
}
