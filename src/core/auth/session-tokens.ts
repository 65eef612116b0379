import { decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import type { Clock } from '../clock.ts';
import { AppError } from '../http/errors.ts';
import { newId } from '../ids.ts';
import type { ActorRef, Principal, SessionPrincipal } from './principal.ts';
import type { RevocationList } from './revocations.ts';
import { SESSION_ALG, type SessionKeyRing } from './signing-keys.ts';

export const SESSION_ISSUER = 'svc:session';
export const SESSION_AUDIENCE = 'svc';

export interface SessionGrant {
  tenantId: string;
  actor: ActorRef;
  modules: readonly string[];
  roomId: string | undefined;
  scopes: readonly string[];
  ttlSeconds: number;
  /** The session id, when the caller recorded it first (connect does); a new one otherwise. */
  jti?: string;
  /** The API key that asked for the token: revoking it revokes the token. */
  mintedBy?: string;
}

export interface MintedSession {
  token: string;
  jti: string;
  expiresAt: number;
}

interface SessionClaims {
  tid: string;
  act: { id: string; type: ActorRef['type']; ext: string; idp: string };
  mods: string[];
  room?: string;
  scp: string[];
  /** Issue time in milliseconds: `iat` has whole seconds, too coarse to tell a token minted just after
   * "revoke every token of this actor" from one minted just before it. */
  iat_ms: number;
  /** The id of the API key that minted the token (absent in tokens minted before keys were recorded). */
  akey?: string;
}

/** Whether a bearer JWT claims to be one of ours (verification decides whether it is). */
export function isSessionToken(token: string): boolean {
  try {
    return decodeJwt(token).iss === SESSION_ISSUER;
  } catch {
    return false;
  }
}

const CLOCK_TOLERANCE_SECONDS = 5;
/**
 * Verified tokens are remembered so a client's every request does not pay for an Ed25519 verification
 * (the costliest step of a session-token request). Revocation and expiry are still checked on each use;
 * an entry is re-verified after a minute so a retired signing key stops its tokens soon.
 */
const VERIFIED_MAX = 10_000;
const VERIFIED_MAX_AGE_MS = 60_000;

interface VerifiedSession {
  principal: SessionPrincipal;
  issuedAtMs: number;
  /** `exp` claim, in seconds. */
  exp: number;
  verifiedAt: number;
}

const TENANT_ID = /^[A-Za-z0-9_]{1,64}$/;
const isActorType = (value: unknown): value is ActorRef['type'] =>
  value === 'end_user' || value === 'guest' || value === 'agent';

const isText = (value: unknown): value is string => typeof value === 'string' && value.length <= 512;
const isTextList = (value: unknown): value is string[] => Array.isArray(value) && value.every(isText);
/** Seconds since the epoch that stay exact as milliseconds. */
const isTime = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0 && Number.isSafeInteger(value * 1000);

/**
 * The claims of a token whose signature verified, when they have the shape this service mints: a token
 * signed with our key but shaped otherwise (a bug, or a key used elsewhere) is refused as any bad token.
 */
function checkedClaims(
  payload: Record<string, unknown>,
): (SessionClaims & { jti: string; iat: number; exp: number }) | undefined {
  const { tid, act, mods, room, scp, iat_ms, jti, iat, exp, akey } = payload;
  if (typeof tid !== 'string' || !TENANT_ID.test(tid)) return undefined;
  if (typeof act !== 'object' || act === null || Array.isArray(act)) return undefined;
  const actor: Record<string, unknown> = { ...act };
  if (!isText(actor.id) || !isText(actor.ext) || !isText(actor.idp)) return undefined;
  if (!isActorType(actor.type)) return undefined;
  if (!isTextList(mods) || !isTextList(scp) || (room !== undefined && !isText(room))) return undefined;
  if (akey !== undefined && !isText(akey)) return undefined;
  if (!isText(jti) || !isTime(iat) || !isTime(exp)) return undefined;
  if (iat_ms !== undefined && !(typeof iat_ms === 'number' && Number.isSafeInteger(iat_ms))) return undefined;
  return {
    tid,
    act: { id: actor.id, type: actor.type, ext: actor.ext, idp: actor.idp },
    mods,
    ...(room === undefined ? {} : { room }),
    scp,
    iat_ms: typeof iat_ms === 'number' ? iat_ms : iat * 1000,
    ...(akey === undefined ? {} : { akey }),
    jti,
    iat,
    exp,
  };
}

function invalid(reason: string): AppError {
  return new AppError('invalid_token', `session token rejected: ${reason}`);
}

export class SessionTokens {
  private readonly verified = new Map<string, VerifiedSession>();

  constructor(
    private readonly keys: SessionKeyRing,
    private readonly revocations: RevocationList,
    private readonly clock: Clock,
  ) {}

  async mint(grant: SessionGrant): Promise<MintedSession> {
    const key = this.keys.signingKey();
    const issuedAtMs = this.clock.now();
    const jti = grant.jti ?? newId('session', issuedAtMs);
    const issuedAt = Math.floor(issuedAtMs / 1000);
    const expiresAt = issuedAt + grant.ttlSeconds;
    const claims: SessionClaims = {
      tid: grant.tenantId,
      act: {
        id: grant.actor.id,
        type: grant.actor.type,
        ext: grant.actor.externalId,
        idp: grant.actor.identityProvider,
      },
      mods: [...grant.modules],
      ...(grant.roomId === undefined ? {} : { room: grant.roomId }),
      scp: [...grant.scopes],
      iat_ms: issuedAtMs,
      ...(grant.mintedBy === undefined ? {} : { akey: grant.mintedBy }),
    };
    const token = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: SESSION_ALG, kid: key.kid, typ: 'JWT' })
      .setIssuer(SESSION_ISSUER)
      .setAudience(SESSION_AUDIENCE)
      .setSubject(grant.actor.id)
      .setJti(jti)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(key.privateKey);
    return { token, jti, expiresAt: expiresAt * 1000 };
  }

  /** Whether this exact token verified recently (it is then certainly one of ours). */
  isVerified(token: string): boolean {
    return this.verified.has(token);
  }

  /**
   * The answer for a token that verified recently, without checking its signature again (the hot path);
   * undefined when it must be verified. Expiry and revocation are checked either way.
   */
  verifyCached(token: string): Principal | undefined {
    const now = this.clock.now();
    const hit = this.verified.get(token);
    if (hit === undefined || now - hit.verifiedAt >= VERIFIED_MAX_AGE_MS) return undefined;
    // Same expiry rule as jwtVerify below: whole seconds, with the clock tolerance.
    if (hit.exp <= Math.floor(now / 1000) - CLOCK_TOLERANCE_SECONDS) {
      this.verified.delete(token);
      throw invalid('expired');
    }
    return this.unlessRevoked(hit);
  }

  async verify(token: string): Promise<Principal> {
    const cached = this.verifyCached(token);
    if (cached !== undefined) return cached;
    const now = this.clock.now();
    let kid: string | undefined;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      throw invalid('malformed');
    }
    const key = await this.keys.verificationKey(kid);
    if (key === undefined) throw invalid('unknown signing key');
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, key, {
        issuer: SESSION_ISSUER,
        audience: SESSION_AUDIENCE,
        algorithms: [SESSION_ALG],
        currentDate: new Date(now),
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp', 'iat', 'jti', 'sub'],
      }));
    } catch (error) {
      throw invalid((error as { code?: string }).code === 'ERR_JWT_EXPIRED' ? 'expired' : 'not verifiable');
    }
    const claims = checkedClaims(payload);
    if (claims === undefined) throw invalid('its claims are not the ones this service issues');
    const verified: VerifiedSession = {
      // Frozen: every request with this token shares it.
      principal: Object.freeze({
        kind: 'session',
        tenantId: claims.tid,
        scopes: claims.scp,
        actor: {
          id: claims.act.id,
          type: claims.act.type,
          externalId: claims.act.ext,
          identityProvider: claims.act.idp,
        },
        modules: claims.mods,
        ...(claims.room === undefined ? {} : { roomId: claims.room }),
        sessionId: claims.jti,
        expiresAt: claims.exp * 1000,
        ...(claims.akey === undefined ? {} : { mintedBy: claims.akey }),
      }),
      issuedAtMs: claims.iat_ms,
      exp: claims.exp,
      verifiedAt: now,
    };
    if (this.verified.size >= VERIFIED_MAX) this.verified.clear();
    this.verified.set(token, verified);
    return this.unlessRevoked(verified);
  }

  /** Revocation is checked on every use, cached signature or not: the token's own, and its API key's. */
  private unlessRevoked({ principal, issuedAtMs }: VerifiedSession): Principal {
    const { tenantId, sessionId, actor, mintedBy } = principal;
    if (this.revocations.isSessionRevoked(tenantId, sessionId, actor.id, issuedAtMs))
      throw invalid('revoked');
    if (mintedBy !== undefined && this.revocations.isApiKeyRevoked(tenantId, mintedBy)) {
      throw invalid('the API key that minted it was revoked');
    }
    return principal;
  }
}
