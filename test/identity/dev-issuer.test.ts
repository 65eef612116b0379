import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateKeyPair, SignJWT } from 'jose';
import { DEV_AUDIENCE, DEV_ISSUER, loadDevIssuer, signDevToken } from '../../src/core/auth/dev-issuer.ts';
import { bearer, hostedToken } from '../factories.ts';
import { buildTestApp, call } from '../helper.ts';
import { expectError } from './support.ts';

const _ISSUER = 'https://idp.example.test/';
const _AUDIENCE = 'svc-console-test';
/** How long an unknown `kid` waits before it may trigger another JWKS fetch (hosted-jwt.ts). */
const _JWKS_COOLDOWN_MS = 5_000;

const _sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the dev issuer', () => {
  test('is refused when env is production', async () => {
    const t = await buildTestApp({ config: { env: 'production' } });
    try {
      assert.equal(t.app.identity.hosted.devIssuer, undefined);
      const dev = await loadDevIssuer(t.config.dataDir, { create: true });
      assert.ok(dev !== undefined);
      const token = await signDevToken(dev, { sub: 'demo-owner', email: 'owner@demo.local' }, Date.now());
      for (const url of ['/api/auth/user', '/api/console/tenants', '/v1/me']) {
        const res = await call(t.app, { method: 'GET', url, headers: bearer(token) });
        expectError(res, 401, 'invalid_token');
      }
    } finally {
      await t.close();
    }
  });

  test('outside production: its tokens are accepted; a forged or expired one is not', async () => {
    const t = await buildTestApp({ config: { authFailureLimit: 1_000_000 } });
    try {
      const dev = t.app.identity.hosted.devIssuer;
      assert.ok(dev !== undefined);
      const ok = await call(t.app, {
        method: 'GET',
        url: '/api/auth/user',
        headers: bearer(await hostedToken(t)),
      });
      assert.equal(ok.statusCode, 200, ok.body);

      const { privateKey } = await generateKeyPair('ES256');
      const now = Math.floor(Date.now() / 1000);
      const claims = (jwt: SignJWT) =>
        jwt
          .setProtectedHeader({ alg: 'ES256', kid: dev.kid })
          .setSubject('demo-owner')
          .setIssuer(DEV_ISSUER)
          .setAudience(DEV_AUDIENCE)
          .setIssuedAt(now - 3600);
      const forged = await claims(new SignJWT({}))
        .setExpirationTime(now + 300)
        .sign(privateKey);
      const expired = await claims(new SignJWT({}))
        .setExpirationTime(now - 120)
        .sign(dev.privateKey);
      for (const token of [forged, expired]) {
        const res = await call(t.app, { method: 'GET', url: '/api/auth/user', headers: bearer(token) });
        expectError(res, 401, 'invalid_token');
      }
    } finally {
      await t.close();
    }
  });
});

describe('the dev issuer checks what a real provider would', () => {
  test('a token without kid, with an unknown kid, or issued an hour from now is refused', async () => {
    const t = await buildTestApp({ config: { authFailureLimit: 1_000_000 } });
    try {
      const dev = t.app.identity.hosted.devIssuer;
      assert.ok(dev !== undefined);
      const now = Math.floor(Date.now() / 1000);
      const sign = (header: { kid?: string }, iat: number) =>
        new SignJWT({})
          .setProtectedHeader({ alg: 'ES256', typ: 'JWT', ...header })
          .setSubject('demo-owner')
          .setIssuer(DEV_ISSUER)
          .setAudience(DEV_AUDIENCE)
          .setIssuedAt(iat)
          .setExpirationTime(iat + 7200)
          .sign(dev.privateKey);
      const good = await sign({ kid: dev.kid }, now);
      assert.equal(
        (await call(t.app, { method: 'GET', url: '/api/auth/user', headers: bearer(good) })).statusCode,
        200,
      );
      for (const [token, reason] of [
        [await sign({}, now), /kid/],
        [await sign({ kid: 'dev-someone-else' }, now), /unknown signing key/],
        [await sign({ kid: dev.kid }, now + 3600), /future/],
      ] as const) {
        const res = await call(t.app, { method: 'GET', url: '/api/auth/user', headers: bearer(token) });
        assert.match(expectError(res, 401, 'invalid_token').message, reason);
      }
    } finally {
      await t.close();
    }
  });

  test('repeated console requests of a known user do not rewrite its row; a changed claim does', async () => {
    const t = await buildTestApp({ config: { authFailureLimit: 1_000_000 } });
    try {
      const dev = t.app.identity.hosted.devIssuer;
      assert.ok(dev !== undefined);
      const sub = `steady-${Date.now()}`;
      const token = await signDevToken(
        dev,
        { sub, email: 'steady@example.test', name: 'Steady' },
        Date.now(),
      );
      const version = async () =>
        (
          await t.db.query<{ v: string }>('select xmin::text as v from users where provider_user_id = $1', [
            sub,
          ])
        ).rows[0]?.v;
      const get = (bearerToken: string) =>
        call(t.app, { method: 'GET', url: '/api/auth/user', headers: bearer(bearerToken) });
      assert.equal((await get(token)).statusCode, 200);
      const first = await version();
      assert.ok(first !== undefined);
      for (let i = 0; i < 3; i++) assert.equal((await get(token)).statusCode, 200);
      assert.equal(await version(), first, 'no write for the same claims');
      const renamed = await signDevToken(
        dev,
        { sub, email: 'steady@example.test', name: 'Renamed' },
        Date.now(),
      );
      assert.equal((await get(renamed)).json<{ user: { name: string } }>().user.name, 'Renamed');
      assert.notEqual(await version(), first, 'a changed name is written');
    } finally {
      await t.close();
    }
  });
});
