import { randomFillSync } from 'node:crypto';
import { randomHex } from '../random.ts';

const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keep a caller's X-Request-Id when it is sane, else mint `req_...` at `now`. */
export function requestIdFrom(header: string | string[] | undefined, now: number): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && ACCEPTABLE_REQUEST_ID.test(value) ? value : mintRequestId(now);
}

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
/** Every 10-bit value as its two base32 characters. */
const PAIRS = Array.from({ length: 1024 }, (_, n) => `${ALPHABET[n >> 5]}${ALPHABET[n & 31]}`);
const POOL_SIZE = 8190;
const pool = Buffer.allocUnsafe(POOL_SIZE);
let offset = POOL_SIZE;
let stampedAt = -1;
let stamp = '';

function pair(n: number): string {
  return PAIRS[n] ?? '00';
}

/** 40 random bits as 8 base32 characters (big-endian, as in every id). */
function eightChars(at: number): string {
  const a = pool[at] ?? 0;
  const b = pool[at + 1] ?? 0;
  const c = pool[at + 2] ?? 0;
  const d = pool[at + 3] ?? 0;
  const e = pool[at + 4] ?? 0;
  return (
    pair((a << 2) | (b >> 6)) +
    pair(((b & 63) << 4) | (c >> 4)) +
    pair(((c & 15) << 6) | (d >> 2)) +
    pair(((d & 3) << 8) | e)
  );
}

/**
 * A request id of the ids' layout (`req_` + 10 characters of millisecond time + 80 random bits), minted
 * for every request that brings none: the time part is encoded once per millisecond and the random part
 * read from a pool filled 819 ids at a time, table-encoded. Unlike stored records' ids, request ids need no
 * order within a millisecond (they correlate logs, nothing sorts by them).
 */
export function mintRequestId(now: number): string {
  if (now !== stampedAt) {
    stampedAt = now;
    // 48 bits of milliseconds as 10 characters (the first holds 3 bits, so it is 0-7).
    let time = now;
    let chars = '';
    for (let i = 0; i < 10; i++) {
      chars = (ALPHABET[time % 32] ?? '0') + chars;
      time = Math.floor(time / 32);
    }
    stamp = `req_${chars}`;
  }
  if (offset + 10 > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const at = offset;
  offset += 10;
  return stamp + eightChars(at) + eightChars(at + 5);
}

export interface TraceContext {
  traceId: string;
  spanId: string;
  /** The caller's span, when a valid `traceparent` arrived. */
  parentSpanId: string | undefined;
  sampled: boolean;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** W3C Trace Context: continue the caller's trace, or start one. */
export function traceFrom(header: string | string[] | undefined): TraceContext {
  const value = (Array.isArray(header) ? header[0] : header)?.trim().toLowerCase();
  const match = value === undefined ? null : TRACEPARENT.exec(value);
  const spanId = randomHex(8);
  if (match !== null) {
    const [, version, traceId = '', parent = '', flags = '00'] = match;
    const valid = version !== 'ff' && !/^0+$/.test(traceId) && !/^0+$/.test(parent);
    if (valid) {
      return { traceId, spanId, parentSpanId: parent, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
    }
  }
  return { traceId: randomHex(16), spanId, parentSpanId: undefined, sampled: false };
}

export function traceparentOf(trace: TraceContext): string {
  return `00-${trace.traceId}-${trace.spanId}-${trace.sampled ? '01' : '00'}`;
}
