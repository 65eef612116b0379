import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import { bearer, type TestTenant } from '../factories.ts';
import { call, type Response, type TestApp } from '../helper.ts';

/** Asserts the spec's error body `{error, message, requestId}` and returns it. */
export function expectError(
  res: Response,
  status: number,
  code: string,
): { error: string; message: string; requestId: string; details?: { field: string; code?: string }[] } {
  const body = res.json<{
    error: string;
    message: string;
    requestId: string;
    details?: { field: string; code?: string }[];
  }>();
  assert.equal(res.statusCode, status, `expected ${status} ${code}, got ${res.statusCode} ${res.body}`);
  assert.equal(body.error, code, res.body);
  assert.equal(typeof body.message, 'string');
  assert.equal(body.requestId, res.headers['x-request-id']);
  return body;
}

/** The RFC 6750 challenge: `Bearer realm="svc"[, error="..."]`. */
export function challengeOf(res: Response): { scheme: string; params: Record<string, string> } {
  const header = res.headers['www-authenticate'];
  assert.equal(typeof header, 'string', `no WWW-Authenticate on ${res.statusCode} ${res.body}`);
  const value = String(header);
  const space = value.indexOf(' ');
  const params: Record<string, string> = {};
  for (const match of value.slice(space + 1).matchAll(/([a-z_]+)="([^"]*)"/g)) {
    const [, name, param] = match;
    if (name !== undefined && param !== undefined) params[name] = param;
  }
  return { scheme: value.slice(0, space), params };
}

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

export interface RsaKey {
  kid: string;
  privateKey: PrivateKey;
  publicJwk: JWK;
  /** The public key as PEM text: what an attacker "signs" with in the HS/RS confusion. */
  publicPem: string;
}

export async function rsaKey(kid: string): Promise<RsaKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  return {
    kid,
    privateKey,
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' },
    publicPem: await exportSPKI(publicKey),
  };
}

/** A local identity provider: a JWKS document on 127.0.0.1 whose keys a test can rotate. */
export interface JwksServer {
  url: string;
  fetches: number;
  keys: RsaKey[];
  /** When false, the endpoint answers 503 (provider outage). */
  up: boolean;
  close(): Promise<void>;
}

export async function startJwksServer(keys: RsaKey[]): Promise<JwksServer> {
  const state = { fetches: 0, keys, up: true };
  const server = http.createServer((request, response) => {
    if (request.url !== '/.well-known/jwks.json') {
      response.writeHead(404).end();
      return;
    }
    state.fetches += 1;
    if (!state.up) {
      response.writeHead(503).end();
      return;
    }
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ keys: state.keys.map((k) => k.publicJwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.defineProperties(
    {
      url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
      close: () =>
        new Promise<void>((resolve, reject) => {
          server.closeAllConnections();
          server.close((error) => (error === undefined ? resolve() : reject(error)));
        }),
    },
    {
      fetches: { get: () => state.fetches, enumerable: true },
      keys: {
        get: () => state.keys,
        set: (next: RsaKey[]) => {
          state.keys = next;
        },
        enumerable: true,
      },
      up: {
        get: () => state.up,
        set: (next: boolean) => {
          state.up = next;
        },
        enumerable: true,
      },
    },
  ) as JwksServer;
}

export interface ProviderClaims {
  sub?: string;
  iss?: string;
  aud?: string;
  /** Seconds relative to now. */
  expIn?: number;
  nbfIn?: number;
  extra?: JWTPayload;
}

/** A token as the provider would sign it (RS256 with `kid`), claims adjustable per test. */
export async function providerToken(key: RsaKey, claims: ProviderClaims): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ ...claims.extra })
    .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' })
    .setSubject(claims.sub ?? 'provider-user-1')
    .setIssuedAt(now)
    .setExpirationTime(now + (claims.expIn ?? 300));
  if (claims.iss !== undefined) jwt.setIssuer(claims.iss);
  if (claims.aud !== undefined) jwt.setAudience(claims.aud);
  if (claims.nbfIn !== undefined) jwt.setNotBefore(now + claims.nbfIn);
  return jwt.sign(key.privateKey);
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An unsigned token (`alg: none`), built by hand since no honest library makes one. */
export function unsignedToken(payload: JWTPayload, header: Record<string, unknown> = {}): string {
  return `${b64({ alg: 'none', typ: 'JWT', ...header })}.${b64(payload)}.`;
}

export const me = (t: TestApp, key: string) =>
  call(t.app, { method: 'GET', url: '/v1/me', headers: { 'x-api-key': key } });

/** Replaces the character at `index` with another one from the same alphabet. */
export function tamper(key: string, index: number): string {
  const char = key.charAt(index);
  const replacement = char === 'a' ? 'b' : 'a';
  return key.slice(0, index) + replacement + key.slice(index + 1);
}

/** Creates an API key through the console route, as the tenant's owner. */
export async function consoleKey(t: TestApp, tenant: TestTenant, body: Record<string, unknown> = {}) {
  const res = await call(t.app, {
    method: 'POST',
    url: `/api/console/tenants/${tenant.tenantId}/api-keys`,
    headers: bearer(tenant.ownerToken),
    payload: { name: 'server', scopes: ['*'], ...body },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ id: string; key: string; prefix: string }>();
}
