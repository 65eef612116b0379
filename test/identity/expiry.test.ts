import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.ts';
import { bearer, createApiKey, createTestTenant, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { expectError, me } from './support.ts';

interface Connected {
  token: string;
  tokenType: string;
  expiresAt: string;
  expiresIn: number;
  sessionId: string;
  actor: { id: string; type: string; identityProvider: string };
  modules: string[];
  roomId: string | null;
  scopes: string[];
}

describe('session token expiry', () => {
  let t: TestApp;
  let clock: ManualClock;
  let tenant: TestTenant;

  before(async () => {
    // A whole second, so the token's whole-second `exp` is exactly the TTL away.
    clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
    t = await buildTestApp({ clock, config: { authFailureLimit: 1_000_000, sessionTtlSeconds: 60 } });
    tenant = await createTestTenant(t);
  });
  after(() => t.close());

  test('valid until SVC_SESSION_TTL_SECONDS (plus 5 s skew), then 401 invalid_token', async () => {
    const connected = await call(t.app, {
      method: 'POST',
      url: '/v1/runtime/connect',
      headers: { 'x-api-key': tenant.apiKey },
      payload: { modules: ['rooms'], actor: { type: 'guest', id: 'guest:g1', identityProvider: 'guest' } },
    });
    assert.equal(connected.statusCode, 201, connected.body);
    const body = connected.json<Connected>();
    assert.equal(body.expiresIn, 60);
    assert.equal(Date.parse(body.expiresAt), Math.floor(clock.now() / 1000) * 1000 + 60_000);
    const me = () => call(t.app, { method: 'GET', url: '/v1/me', headers: bearer(body.token) });
    clock.advance(59_000);
    assert.equal((await me()).statusCode, 200);
    clock.advance(7_000);
    const res = expectError(await me(), 401, 'invalid_token');
    assert.match(res.message, /expired/);
  });
});

describe('API key expiry', () => {
  let t: TestApp;
  let clock: ManualClock;
  let tenant: TestTenant;

  before(async () => {
    clock = new ManualClock(Date.now());
    t = await buildTestApp({ clock, config: { authFailureLimit: 1_000_000 } });
    tenant = await createTestTenant(t);
  });
  after(() => t.close());

  test('a key past its expiresAt -> 401 invalid_api_key, even while cached', async () => {
    const expiresAt = new Date(clock.now() + 3_600_000).toISOString();
    const key = await createApiKey(t, tenant.tenantId, ['*'], { expiresAt });
    assert.equal((await me(t, key)).statusCode, 200);
    clock.advance(3_600_000 - 1000);
    assert.equal((await me(t, key)).statusCode, 200);
    clock.advance(1000);
    expectError(await me(t, key), 401, 'invalid_api_key');
  });

  test('the console refuses an expiresAt in the past', async () => {
    const res = await call(t.app, {
      method: 'POST',
      url: `/api/console/tenants/${tenant.tenantId}/api-keys`,
      headers: bearer(tenant.ownerToken),
      payload: { name: 'old', scopes: ['*'], expiresAt: new Date(clock.now() - 1000).toISOString() },
    });
    const body = expectError(res, 400, 'invalid_request');
    assert.equal(body.details?.[0]?.field, '/body/expiresAt');
  });
});
