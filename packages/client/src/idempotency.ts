import type { Middleware } from 'openapi-fetch';
import { IDEMPOTENT_POSTS } from './generated/idempotent-posts.ts';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/**
 * A random key: `crypto.randomUUID` where there is one (browsers in a secure context, Node), else 128
 * random bits from `crypto.getRandomValues` (React Native with a polyfill, plain-http pages).
 */
export function randomIdempotencyKey(): string {
  const crypto = globalThis.crypto;
  if (typeof crypto?.randomUUID === 'function') return crypto.randomUUID();
  const bytes = new Uint8Array(16);
  if (typeof crypto?.getRandomValues === 'function') crypto.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Gives every POST whose operation takes an `Idempotency-Key` (bids, buy-now, payments and their steps) a
 * fresh key, unless the caller set one. The key is set once on the request, so the retries of that call
 * carry the same key and the service answers a retry with the first answer instead of acting twice.
 */
export function idempotencyMiddleware(newKey: () => string): Middleware {
  return {
    onRequest({ request, schemaPath }) {
      if (request.method !== 'POST' || !IDEMPOTENT_POSTS.has(schemaPath)) return undefined;
      if (request.headers.has(IDEMPOTENCY_KEY_HEADER)) return undefined;
      request.headers.set(IDEMPOTENCY_KEY_HEADER, newKey());
      return request;
    },
  };
}
