import { Redis } from 'ioredis';

/** How long start-up waits for Redis to answer (it may be starting beside the service) before giving up. */
export const REDIS_START_WAIT_MS = 5000;
const RETRY_EVERY_MS = 250;
const ATTEMPT_MS = 2000;

/** REDIS_URL could not be reached at start-up: the service refuses to start (the CLI exits 1 with this message). */
export class RedisUnreachableAtStart extends Error {
  constructor(url: string, waitedMs: number, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `REDIS_URL ${shownUrl(url)} does not answer (${reason}; tried for ${waitedMs / 1000} s). ` +
        'Start Redis there or correct REDIS_URL; unset REDIS_URL to run a single instance without Redis.',
      { cause },
    );
    this.name = 'RedisUnreachableAtStart';
  }
}

/** The URL without its password, to be printed. */
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '(unreadable URL)';
  }
}

/** One attempt: connect without retries and PING, within `timeoutMs`. */
async function probe(url: string, timeoutMs: number): Promise<void> {
  let lastError: unknown;
  const redis = new Redis(url, {
    lazyConnect: true,
    connectionName: 'svc-start-check',
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    enableOfflineQueue: false,
  });
  // The attempt's errors are its result, not log lines: one message says what went wrong.
  redis.on('error', (error: unknown) => {
    lastError = error;
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw lastError ?? error;
  } finally {
    redis.disconnect();
  }
}

/**
 * Resolves once Redis at `url` answers a PING; retries for `waitMs` (real time: a network wait, each
 * attempt bounded too), then rejects with `RedisUnreachableAtStart`, naming REDIS_URL and the last error.
 */
export async function waitForRedis(url: string, waitMs = REDIS_START_WAIT_MS): Promise<void> {
  let expired = false;
  const deadline = setTimeout(() => {
    expired = true;
  }, waitMs);
  try {
    for (;;) {
      try {
        await probe(url, Math.min(ATTEMPT_MS, waitMs));
        return;
      } catch (error) {
        if (expired) throw new RedisUnreachableAtStart(url, waitMs, error);
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_EVERY_MS));
    }
  } finally {
    clearTimeout(deadline);
  }
}
