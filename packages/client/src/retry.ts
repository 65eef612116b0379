import { IDEMPOTENCY_KEY_HEADER } from './idempotency.ts';

export interface RetryOptions {
  /** Attempts in all, the first included (default 3); 1 turns retries off. */
  attempts?: number;
  /** The first backoff when the answer names no `Retry-After` (default 500 ms), doubled per attempt. */
  baseDelayMs?: number;
  /** No wait longer than this (default 20 s); a `Retry-After` beyond it is handed back, not waited for. */
  maxDelayMs?: number;
  /** How to wait (tests pass one that records the delay and returns at once). */
  sleep?: (ms: number) => Promise<void>;
  /** A number in [0, 1) for the backoff's jitter (default `Math.random`). */
  random?: () => number;
}

/** Answers that say "the same request may succeed later": the service is draining or busy, or rate-limited. */
const RETRY_STATUSES = new Set([429, 503]);
/** Methods a retry cannot make happen twice; a POST only with an `Idempotency-Key`. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

function isSafeToRetry(request: Request): boolean {
  return SAFE_METHODS.has(request.method) || request.headers.has(IDEMPOTENCY_KEY_HEADER);
}

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(response: Response, now: number = Date.now()): number | undefined {
  const value = response.headers.get('Retry-After');
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Wraps `fetch` so a request that is safe to repeat is retried on 503 or 429 (after `Retry-After` when the
 * answer gives one, else full-jitter exponential backoff) and on a network failure; each attempt sends a
 * copy of the request, so its body and its `Idempotency-Key` are the same every time.
 */
export function retryingFetch(
  baseFetch: (request: Request) => Promise<Response>,
  options: RetryOptions = {},
): (request: Request) => Promise<Response> {
  const attempts = Math.max(1, options.attempts ?? 3);
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 20_000;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const backoff = (attempt: number) =>
    Math.floor(random() * Math.min(maxDelayMs, baseDelayMs * 2 ** attempt));

  return async (request) => {
    if (attempts === 1 || !isSafeToRetry(request)) return baseFetch(request);
    for (let attempt = 0; ; attempt++) {
      const last = attempt === attempts - 1;
      let response: Response;
      try {
        response = await baseFetch(last ? request : request.clone());
      } catch (error) {
        // An abort is the caller's decision, not a failure to retry.
        if (last || request.signal?.aborted) throw error;
        await sleep(backoff(attempt));
        continue;
      }
      if (last || !RETRY_STATUSES.has(response.status)) return response;
      const delay = retryAfterMs(response) ?? backoff(attempt);
      if (delay > maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(delay);
    }
  };
}
