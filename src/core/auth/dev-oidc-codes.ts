import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.ts';

/** What the user granted on the dev provider's sign-in page, held until the console redeems its code. */
export interface DevGrant {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  nonce: string | undefined;
  subject: string;
  email: string;
}

/** A code lives this long: the console redeems it the moment the redirect lands. */
export const CODE_TTL_MS = 60_000;
/** More codes than this waiting at once are not a person signing in: the oldest are dropped. */
const MAX_WAITING = 1_000;

/** RFC 7636: the verifier's alphabet and length. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** S256: the challenge is the base64url SHA-256 of the verifier. */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  const expected = Buffer.from(challenge);
  const actual = Buffer.from(pkceChallenge(verifier));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/**
 * The dev provider's authorization codes: random, one use, short-lived, in this process's memory (the dev
 * provider serves one development instance; a restart only asks the user to click again).
 */
export class DevAuthorizationCodes {
  private readonly waiting = new Map<string, DevGrant & { expiresAt: number }>();

  constructor(private readonly clock: Pick<Clock, 'now'>) {}

  issue(grant: DevGrant): string {
    const now = this.clock.now();
    for (const [code, held] of this.waiting) {
      if (held.expiresAt <= now || this.waiting.size >= MAX_WAITING) this.waiting.delete(code);
    }
    const code = randomBytes(32).toString('base64url');
    this.waiting.set(code, { ...grant, expiresAt: now + CODE_TTL_MS });
    return code;
  }

  /** The grant of a code, once: a second redemption (or an expired code) finds nothing. */
  redeem(code: string): DevGrant | undefined {
    const held = this.waiting.get(code);
    if (held === undefined) return undefined;
    this.waiting.delete(code);
    if (held.expiresAt <= this.clock.now()) return undefined;
    const { expiresAt: _expiresAt, ...grant } = held;
    return grant;
  }
}

/** The dev provider's own sign-in cookie: like a real provider, it remembers who signed in on this browser. */
export const SESSION_COOKIE = 'svc_dev_oidc_session';

/**
 * Browsers signed in at the dev provider (its cookie's random values), so a reload of the console (whose
 * token lives in memory only) comes back signed in without a click, until the console signs out here.
 */
export class DevProviderSessions {
  private readonly open = new Set<string>();

  begin(): string {
    if (this.open.size >= MAX_WAITING) this.open.clear();
    const id = randomBytes(32).toString('base64url');
    this.open.add(id);
    return id;
  }

  has(cookieHeader: string | undefined): boolean {
    const id = cookieValue(cookieHeader);
    return id !== undefined && this.open.has(id);
  }

  end(cookieHeader: string | undefined): void {
    const id = cookieValue(cookieHeader);
    if (id !== undefined) this.open.delete(id);
  }
}

function cookieValue(header: string | undefined): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [name, value] = part.trim().split('=');
    if (name === SESSION_COOKIE && value !== undefined && value !== '') return value;
  }
  return undefined;
}
