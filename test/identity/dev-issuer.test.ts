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
      const token = await signDevToken(dev, { sub: 'demo-owner', email: 'owner@demo.local' });
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
