import { pooledRandomBytes } from './random.ts';

/**
 * Prefix-style, sortable, URL-safe ids: `<prefix>_<26 chars of Crockford base32>` holding a 48-bit
 * millisecond timestamp and 80 random bits (the TypeID layout). Ids minted in the same millisecond by one
 * process increase, so ordering by id is ordering by creation.
 *
 * Core mints the kinds below. A module declares its own kinds in its folder with `defineIds` and lists
 * them in its manifest (`idPrefixes`); the registry refuses two modules, or a module and core, that claim
 * the same kind or prefix. Prefixes are stored in ids: never change one.
 */
export const CORE_ID_PREFIXES = {
  tenant: 'ten',
  user: 'usr',
  membership: 'mem',
  invitation: 'inv',
  apiKey: 'key',
  productKey: 'pk',
  actor: 'act',
  session: 'ses',
  event: 'evt',
  request: 'req',
} as const;

export type CoreIdKind = keyof typeof CORE_ID_PREFIXES;

/** Minting and checking ids of a closed set of kinds, each typed by its kind names. */
export interface IdHelpers<Kind extends string> {
  newId(kind: Kind, now: number): string;
  isId(kind: Kind, value: unknown): value is string;
  /** JSON-schema pattern for an id of one kind, for route schemas. */
  idPattern(kind: Kind): string;
}

/** A module's id helpers: its own kinds (what its manifest declares as `idPrefixes`) and core's. */
export interface ModuleIds<Own extends string> extends IdHelpers<Own | CoreIdKind> {
  readonly prefixes: Readonly<Record<Own, string>>;
}

/** The kind names a set of helpers accepts, e.g. `IdKindOf<typeof webhooksIds>`. */
export type IdKindOf<Helpers extends IdHelpers<string>> = Parameters<Helpers['newId']>[0];

const PREFIX = /^[a-z]{1,8}$/;
const SUFFIX = /^[0-7][0-9a-hjkmnp-tv-z]{25}$/;
const SUFFIX_PATTERN = '[0-7][0-9a-hjkmnp-tv-z]{25}';

/**
 * Refuses `owner`'s id kinds when a prefix is not 1-8 lower-case letters or when a kind or a prefix is
 * core's; the message names what collides.
 */
export function checkIdPrefixes(owner: string, prefixes: Readonly<Record<string, string>>): void {
  const coreKinds = new Map<string, string>(Object.entries(CORE_ID_PREFIXES));
  const corePrefixes = new Map([...coreKinds].map(([kind, prefix]) => [prefix, kind]));
  const seen = new Map<string, string>();
  for (const [kind, prefix] of Object.entries(prefixes)) {
    if (!PREFIX.test(prefix))
      throw new Error(
        `${owner}: id prefix ${JSON.stringify(prefix)} of ${kind} is not 1-8 lower-case letters`,
      );
    if (coreKinds.has(kind)) throw new Error(`${owner}: id kind ${kind} is core's`);
    const coreKind = corePrefixes.get(prefix);
    if (coreKind !== undefined)
      throw new Error(`${owner}: id prefix ${prefix} of ${kind} is core's (${coreKind})`);
    const other = seen.get(prefix);
    if (other !== undefined)
      throw new Error(`${owner}: id prefix ${prefix} is given to ${other} and ${kind}`);
    seen.set(prefix, kind);
  }
}

function helpers<Kind extends string>(prefixes: Readonly<Record<Kind, string>>): IdHelpers<Kind> {
  return {
    newId: (kind, now) => `${prefixes[kind]}_${newIdSuffix(now)}`,
    isId: (kind, value): value is string => {
      if (typeof value !== 'string') return false;
      const prefix = `${prefixes[kind]}_`;
      return value.startsWith(prefix) && SUFFIX.test(value.slice(prefix.length));
    },
    idPattern: (kind) => `^${prefixes[kind]}_${SUFFIX_PATTERN}$`,
  };
}

/**
 * A module's id kinds, declared in its folder (`ids.ts`) and listed in its manifest:
 * `export const pollsIds = defineIds({ poll: 'poll' })`, then `newId('poll', ctx.clock.now())` from it.
 * Its helpers take core's kinds too. Throws when a kind or prefix is core's.
 */
export function defineIds<const Own extends Readonly<Record<string, string>>>(
  own: Own,
): ModuleIds<Extract<keyof Own, string>> {
  checkIdPrefixes('defineIds', own);
  const all = { ...CORE_ID_PREFIXES, ...own } as Readonly<
    Record<Extract<keyof Own, string> | CoreIdKind, string>
  >;
  return { prefixes: own, ...helpers(all) };
}

/** Core's helpers, for core's own kinds; a module mints its kinds with the helpers of its `defineIds`. */
export const { newId, isId, idPattern }: IdHelpers<CoreIdKind> = helpers(CORE_ID_PREFIXES);

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

// Process-wide, not per app: ids minted in one millisecond by this process keep increasing.
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

export function idTimestamp(id: string): number {
  const suffix = id.slice(id.lastIndexOf('_') + 1);
  let value = 0n;
  for (const char of suffix) value = (value << 5n) | BigInt(ALPHABET.indexOf(char));
  return Number(value >> 80n);
}
