import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { loadDevIssuer, signDevToken } from '../../src/core/auth/dev-issuer.ts';
import { bearer } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import {
  challengeOf,
  expectError,
  type JwksServer,
  providerToken,
  type RsaKey,
  rsaKey,
  startJwksServer,
  unsignedToken,
} from './support.ts';

const ISSUER = 'https://idp.example.test/';
const AUDIENCE = 'svc-console-test';
/** How long an unknown `kid` waits before it may trigger another JWKS fetch (hosted-jwt.ts). */
const JWKS_COOLDOWN_MS = 5_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('hosted-auth JWTs verified against a JWKS provider', () => {
  let server: JwksServer;
  let key: RsaKey;
  let t: TestApp;

  before(async () => {
    key = await rsaKey('provider-key-1');
    server = await startJwksServer([key]);
    t = await buildTestApp({
      config: {
        hostedAuth: { jwksUrl: server.url, issuer: ISSUER, audience: AUDIENCE },
        authFailureLimit: 1_000_000,
      },
    });
  });
  after(async () => {
    await t.close();
    await server.close();
  });

  const authUser = (token: string) =>
    call(t.app, { method: 'GET', url: '/api/auth/user', headers: bearer(token) });
  const good = (claims: Parameters<typeof providerToken>[1] = {}, signer: RsaKey = key) =>
    providerToken(signer, { iss: ISSUER, aud: AUDIENCE, ...claims });

  async function refused(token: string, reason?: RegExp): Promise<void> {
    const res = await authUser(token);
    const body = expectError(res, 401, 'invalid_token');
    assert.equal(challengeOf(res).params.error, 'invalid_token');
    if (reason !== undefined) assert.match(body.message, reason);
  }

  test('a valid provider token: the provider user maps to one internal user, created on first sight', async () => {
    const token = await good({
      sub: 'auth0|alice',
      extra: { email: 'Alice@Example.test', email_verified: true },
    });
    const first = await authUser(token);
    assert.equal(first.statusCode, 200, first.body);
    const user = first.json<{
      user: { id: string; identityProvider: string; providerUserId: string; email: string };
    }>().user;
    assert.equal(user.identityProvider, ISSUER);
    assert.equal(user.providerUserId, 'auth0|alice');
    assert.equal(user.email, 'alice@example.test');
    const again = await authUser(await good({ sub: 'auth0|alice' }));
    assert.equal(again.json<{ user: { id: string } }>().user.id, user.id);
    // The console accepts it too.
    const tenants = await call(t.app, { method: 'GET', url: '/api/console/tenants', headers: bearer(token) });
    assert.equal(tenants.statusCode, 200);
  });

  test('forged: signed by another key under the same kid -> 401 invalid_token', async () => {
    const impostor = await rsaKey(key.kid);
    await refused(await good({}, impostor), /signature/);
  });

  test('expired beyond the 60 s skew -> 401; within the skew -> accepted', async () => {
    await refused(await good({ expIn: -120 }), /expired/);
    assert.equal((await authUser(await good({ expIn: -30 }))).statusCode, 200);
  });

  test('not yet valid (nbf) beyond the 60 s skew -> 401; within the skew -> accepted', async () => {
    await refused(await good({ nbfIn: 120 }), /nbf/);
    assert.equal((await authUser(await good({ nbfIn: 30 }))).statusCode, 200);
  });

  test('wrong issuer, wrong or missing audience -> 401', async () => {
    await refused(await good({ iss: 'https://evil.example.test/' }), /iss/);
    await refused(await good({ aud: 'another-app' }), /aud/);
    await refused(await providerToken(key, { iss: ISSUER }), /aud/);
    await refused(await providerToken(key, { aud: AUDIENCE }), /iss/);
  });

  test('alg: none -> 401, without fetching keys', async () => {
    const before = server.fetches;
    const now = Math.floor(Date.now() / 1000);
    const payload = { sub: 'auth0|mallory', iss: ISSUER, aud: AUDIENCE, iat: now, exp: now + 300 };
    await refused(unsignedToken(payload, { kid: key.kid }));
    await refused(unsignedToken(payload));
    assert.equal(server.fetches, before);
  });

  test('HS256 signed with the public key as the HMAC secret (HS/RS confusion) -> 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const secret of [key.publicPem, JSON.stringify(key.publicJwk)]) {
      const token = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256', kid: key.kid, typ: 'JWT' })
        .setSubject('auth0|mallory')
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt(now)
        .setExpirationTime(now + 300)
        .sign(new TextEncoder().encode(secret));
      await refused(token, /algorithm/);
    }
  });

  test('a token without sub or exp -> 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    const noSub = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: key.kid })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime(now + 300)
      .sign(key.privateKey);
    await refused(noSub);
    const noExp = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: key.kid })
      .setSubject('auth0|bob')
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .sign(key.privateKey);
    await refused(noExp);
  });

  test('with a provider configured, dev-issuer tokens are refused', async () => {
    assert.equal(t.app.identity.hosted.devIssuer, undefined);
    const dev = await loadDevIssuer(t.config.dataDir, { create: true });
    assert.ok(dev !== undefined);
    await refused(await signDevToken(dev, { sub: 'demo-owner' }, Date.now()));
  });

  test('an unknown kid refreshes the JWKS (key rotation); old keys stop working; a kid flood is bounded', async () => {
    // Make sure the cached set is loaded, then let its cool-down pass, as after any quiet period.
    assert.equal((await authUser(await good())).statusCode, 200);
    await sleep(JWKS_COOLDOWN_MS + 200);
    const rotated = await rsaKey('provider-key-2');
    server.keys = [rotated];
    const fetchesBefore = server.fetches;
    const res = await authUser(await good({ sub: 'auth0|carol' }, rotated));
    const fetchedAt = Date.now();
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(server.fetches, fetchesBefore + 1);
    // The retired key is gone from the fresh set.
    await refused(await good({}, key), /signing key not found/);
    // Tokens naming random kids do not each trigger a fetch: at most one per cool-down interval.
    const floodStart = Date.now();
    for (let i = 0; i < 5; i++) await refused(await good({}, { ...rotated, kid: `random-${i}` }));
    const intervals = Math.floor((Date.now() - fetchedAt) / JWKS_COOLDOWN_MS);
    assert.ok(
      server.fetches <= fetchesBefore + 1 + intervals,
      `${server.fetches - fetchesBefore - 1} fetches for 5 unknown kids in ${Date.now() - floodStart} ms`,
    );
  });
});

describe('hosted-auth provider outage', () => {
  let server: JwksServer;
  let key: RsaKey;
  let t: TestApp;

  before(async () => {
    key = await rsaKey('outage-key');
    server = await startJwksServer([key]);
    server.up = false;
    t = await buildTestApp({
      config: {
        hostedAuth: { jwksUrl: server.url, issuer: ISSUER, audience: AUDIENCE },
        authFailureLimit: 2,
      },
    });
  });
  after(async () => {
    await t.close();
    await server.close();
  });

  test('an unreachable JWKS answers 503 service_unavailable, not invalid_token, and is no auth failure', async () => {
    const token = await providerToken(key, { iss: ISSUER, aud: AUDIENCE });
    for (let i = 0; i < 3; i++) {
      const res = await call(t.app, { method: 'GET', url: '/api/auth/user', headers: bearer(token) });
      expectError(res, 503, 'service_unavailable');
    }
    // Failed fetches set no cool-down: the first request after the provider is back succeeds.
    server.up = true;
    const res = await call(t.app, { method: 'GET', url: '/api/auth/user', headers: bearer(token) });
    assert.equal(res.statusCode, 200, res.body);
  });
});
