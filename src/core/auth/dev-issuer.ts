import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';

/**
 * Development stand-in for the hosted auth provider: an ES256 key pair kept in SVC_DATA_DIR, so
 * `svc dev-token` and the running service agree. Production refuses it.
 */
export const DEV_ISSUER = 'svc-dev-issuer';
export const DEV_AUDIENCE = 'svc-console';
export const DEV_OWNER_SUB = 'demo-owner';
export const DEV_OWNER_EMAIL = 'owner@demo.local';
const ALG = 'ES256';
const FILE = 'dev-issuer-key.json';

type Key = Awaited<ReturnType<typeof importJWK>>;

export interface DevIssuer {
  publicKey: Key;
  privateKey: Key;
  kid: string;
}

export async function loadDevIssuer(
  dataDir: string,
  options: { create: boolean },
): Promise<DevIssuer | undefined> {
  const file = path.join(dataDir, FILE);
  if (!fs.existsSync(file)) {
    if (!options.create) return undefined;
    const { privateKey } = await generateKeyPair(ALG, { extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), kid: `dev-${randomBytes(6).toString('hex')}`, alg: ALG };
    fs.mkdirSync(dataDir, { recursive: true });
    // wx: two processes starting at once must not overwrite each other's key.
    try {
      fs.writeFileSync(file, JSON.stringify(jwk), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const jwk = JSON.parse(fs.readFileSync(file, 'utf8')) as JWK;
  const { d: _private, ...publicJwk } = jwk;
  return {
    kid: String(jwk.kid),
    privateKey: await importJWK(jwk, ALG),
    publicKey: await importJWK(publicJwk, ALG),
  };
}

export async function signDevToken(
  issuer: DevIssuer,
  claims: { sub: string; email?: string; name?: string; ttlSeconds?: number },
  /** When it is issued (ms, the app's clock): the app that checks it reads the same clock. */
  now: number,
): Promise<string> {
  const issuedAt = Math.floor(now / 1000);
  const jwt = new SignJWT({
    ...(claims.email === undefined ? {} : { email: claims.email, email_verified: true }),
    ...(claims.name === undefined ? {} : { name: claims.name }),
  })
    .setProtectedHeader({ alg: ALG, kid: issuer.kid, typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuer(DEV_ISSUER)
    .setAudience(DEV_AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + (claims.ttlSeconds ?? 3600));
  return jwt.sign(issuer.privateKey);
}
