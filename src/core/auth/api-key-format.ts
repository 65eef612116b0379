import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Tenant API keys: `svc_<env>_<prefix>_<secret>`, e.g. `svc_live_k3v9d2m1q8xz_<43 chars>`.
 * The prefix (12 chars) finds the row; the SHA-256 of the whole key proves it. The secret carries 256
 * random bits, so a fast hash is enough: there is nothing to brute-force.
 */
export interface ParsedApiKey {
  env: 'live' | 'test';
  prefix: string;
  full: string;
}

const KEY = /^svc_(live|test)_([0-9a-z]{12})_([A-Za-z0-9_-]{43})$/;
const PREFIX_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

export function looksLikeApiKey(value: string): boolean {
  // Case-insensitively: a key mangled to upper case is still meant as an API key, and refused as one.
  return value.slice(0, 4).toLowerCase() === 'svc_';
}

export function parseApiKey(value: string): ParsedApiKey | undefined {
  if (!KEY.test(value)) return undefined;
  // Fixed layout once the pattern holds: `svc_` + 4-letter env + `_` + 12-char prefix.
  return { env: value.startsWith('svc_live_') ? 'live' : 'test', prefix: value.slice(9, 21), full: value };
}

/** One-shot SHA-256: on the per-request path, without the cost of a Hash object per call. */
export function hashApiKey(key: string): Buffer {
  return hash('sha256', key, 'buffer');
}

export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Constant-time equality of two strings of the key alphabet (time depends only on the length). */
export function sameKey(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

export function generateApiKey(env: 'live' | 'test'): { key: string; prefix: string; hash: Buffer } {
  const bytes = randomBytes(12);
  let prefix = '';
  for (const byte of bytes) prefix += PREFIX_ALPHABET[byte % PREFIX_ALPHABET.length];
  const key = `svc_${env}_${prefix}_${randomBytes(32).toString('base64url')}`;
  return { key, prefix, hash: hashApiKey(key) };
}

/** Publishable product keys (`pk_...`): not secret, they name the product a frontend speaks for. */
export function generateProductKey(env: 'live' | 'test'): string {
  return `pk_${env}_${randomBytes(18).toString('base64url')}`;
}

const PRODUCT_KEY = /^pk_(live|test)_[A-Za-z0-9_-]{24}$/;

/** Whether a value has the shape of a product key (so a malformed one costs no database lookup). */
export function isProductKeyShaped(value: string): boolean {
  return PRODUCT_KEY.test(value);
}
