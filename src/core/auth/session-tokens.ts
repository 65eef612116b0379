import { decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import type { Clock } from '../clock.ts';
import { AppError } from '../http/errors.ts';
import { newId } from '../ids.ts';
import type { ActorRef, Principal } from './principal.ts';
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
}

/** Whether a bearer JWT claims to be one of ours (verification decides whether it is). */
export function isSessionToken(token: string): boolean {
  try {
    return decodeJwt(token).iss === SESSION_ISSUER;
  } catch {
    return false;
  }
}

function invalid(reason: string): AppError {
  return new AppError('invalid_token', `session token rejected: ${reason}`);
}

export class SessionTokens {
  constructor(
    private readonly keys: SessionKeyRing,
    private readonly revocations: RevocationList,
    private readonly clock: Clock,
  ) {}

  async mint(grant: SessionGrant): Promise<MintedSession> {
    const key = this.keys.signingKey();
    const jti = newId('session');
    const issuedAt = Math.floor(this.clock.now() / 1000);
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

  async verify(token: string): Promise<Principal> {
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
        currentDate: new Date(this.clock.now()),
        clockTolerance: 5,
        requiredClaims: ['exp', 'iat', 'jti', 'sub'],
      }));
    } catch (error) {
      throw invalid((error as { code?: string }).code === 'ERR_JWT_EXPIRED' ? 'expired' : 'not verifiable');
    }
    const claims = payload as unknown as SessionClaims & { jti: string; iat: number; exp: number };
    if (this.revocations.isSessionRevoked(claims.jti, claims.act.id, claims.iat * 1000))
      throw invalid('revoked');
    return {
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
    };
  }
}
