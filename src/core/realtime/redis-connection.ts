import { Redis, type RedisOptions } from 'ioredis';
import type { ErrorReporter } from './listeners.ts';

/** One named connection (the name shows in CLIENT LIST, which is how operators find an instance's links). */
export function openRedis(
  url: string,
  name: string,
  report: ErrorReporter,
  options: RedisOptions = {},
): Redis {
  const redis = new Redis(url, { connectionName: name, ...options });
  // Without a listener ioredis stays silent; with one, connection trouble reaches the service's log.
  redis.on('error', (error: unknown) => report(error, `redis connection ${name}`));
  return redis;
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
