import { pooledRandomBytes } from './random.ts';

/**
 * Prefix-style, sortable, URL-safe ids: `<prefix>_<26 chars of Crockford base32>` holding a 48-bit
 * millisecond timestamp and 80 random bits (the TypeID layout). Ids minted in the same millisecond by one
 * process increase, so ordering by id is ordering by creation.
 */
export const ID_PREFIXES = {
  tenant: 'ten',
  user: 'usr',
  membership: 'mem',
  invitation: 'inv',
  apiKey: 'key',
  productKey: 'pk',
  actor: 'act',
  session: 'ses',
  room: 'room',
  message: 'msg',
  auction: 'auc',
  bid: 'bid',
  payment: 'pay',
  refund: 're',
  ledgerTransaction: 'ltx',
  event: 'evt',
  analyticsEvent: 'aev',
  webhookEndpoint: 'whe',
  webhookDelivery: 'whd',
  operator: 'op',
  mobileBuild: 'mbd',
  request: 'req',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;
export type IdPrefix = (typeof ID_PREFIXES)[IdKind];

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const SUFFIX = /^[0-7][0-9a-hjkmnp-tv-z]{25}$/;

let lastTime = -1;
let lastRandom = new Uint8Array(10);

function incrementRandom(bytes: Uint8Array): boolean {
  for (let i = bytes.length - 1; i >= 0; i--) {
    const byte = bytes[i] ?? 0;
    if (byte < 255) {
      bytes[i] = byte + 1;
      return true;
    }
    bytes[i] = 0;
  }
  return false;
}

function encode(time: number, random: Uint8Array): string {
  // 130 bits of base32: chars 0-9 hold the 48-bit time (two leading zero bits), chars 10-25 the
  // 80 random bits as two 40-bit halves, each exact in a double.
  let out = '';
  let t = time;
  for (let i = 0; i < 10; i++) {
    out = (ALPHABET[t % 32] ?? '0') + out;
    t = Math.floor(t / 32);
  }
  for (const start of [0, 5]) {
    let half = 0;
    for (let i = start; i < start + 5; i++) half = half * 256 + (random[i] ?? 0);
    let chunk = '';
    for (let i = 0; i < 8; i++) {
      chunk = (ALPHABET[half % 32] ?? '0') + chunk;
      half = Math.floor(half / 32);
    }
    out += chunk;
  }
  return out;
}

/** The id's time part is `now`, the caller's clock (the app's injectable one): ids never read the wall clock. */
export function newIdSuffix(now: number): string {
  if (now <= lastTime && incrementRandom(lastRandom)) {
    return encode(lastTime, lastRandom);
  }
  lastTime = Math.max(now, lastTime + 1);
  lastRandom = new Uint8Array(pooledRandomBytes(10));
  return encode(lastTime, lastRandom);
}

export function newId(kind: IdKind, now: number): string {
  return `${ID_PREFIXES[kind]}_${newIdSuffix(now)}`;
}

export function isId(kind: IdKind, value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const prefix = `${ID_PREFIXES[kind]}_`;
  return value.startsWith(prefix) && SUFFIX.test(value.slice(prefix.length));
}

/** JSON-schema pattern for an id of one kind, for route schemas. */
export function idPattern(kind: IdKind): string {
  return `^${ID_PREFIXES[kind]}_[0-7][0-9a-hjkmnp-tv-z]{25}$`;
}

export function idTimestamp(id: string): number {
  const suffix = id.slice(id.lastIndexOf('_') + 1);
  let value = 0n;
  for (const char of suffix) value = (value << 5n) | BigInt(ALPHABET.indexOf(char));
  return Number(value >> 80n);
}
