import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, connectSession, createApiKey, createTestTenant, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { consoleKey, expectError, me, tamper } from './support.ts';

describe('API key validation', () => {
  let t: TestApp;
  let tenant: TestTenant;

  before(async () => {
    t = await buildTestApp({ config: { authFailureLimit: 1_000_000 } });
    tenant = await createTestTenant(t);
  });
  after(() => t.close());

  test('tampered: one changed secret character -> 401 invalid_api_key, before and after the key is cached', async () => {
    const key = await createApiKey(t, tenant.tenantId, ['*']);
    // After the prefix's own '_' (the secret's alphabet has '_' too, so not after the last one).
    const secretStart = key.indexOf('_', 'svc_live_'.length) + 1;
    assert.equal(key.length - secretStart, 43);
    // Not cached yet: the forged key is the first to arrive.
    expectError(await me(t, tamper(key, secretStart + 5)), 401, 'invalid_api_key');
    assert.equal((await me(t, key)).statusCode, 200);
    for (const index of [secretStart, secretStart + 20, key.length - 1]) {
      expectError(await me(t, tamper(key, index)), 401, 'invalid_api_key');
    }
    assert.equal((await me(t, key)).statusCode, 200);
  });

  test('tampered prefix or environment -> 401 invalid_api_key', async () => {
    const key = await createApiKey(t, tenant.tenantId, ['*']);
    expectError(await me(t, tamper(key, 'svc_live_'.length + 3)), 401, 'invalid_api_key');
    expectError(await me(t, key.replace('svc_live_', 'svc_test_')), 401, 'invalid_api_key');
  });

  test('malformed keys -> 401 invalid_api_key', async () => {
    const key = await createApiKey(t, tenant.tenantId, ['*']);
    const malformed = [
      'svc_',
      'svc_live_',
      key.slice(0, -1),
      `${key}x`,
      key.replace('svc_live_', 'svc_prod_'),
      key.replace('_', '-'),
      `svc_live_${'a'.repeat(12)}_${'b'.repeat(43)}`,
      key.toUpperCase(),
    ];
    for (const value of malformed) {
      expectError(await me(t, value), 401, 'invalid_api_key');
    }
    // Not even shaped like a key, as a Bearer: neither a key nor a JWT.
    expectError(
      await call(t.app, { method: 'GET', url: '/v1/me', headers: bearer('sk_live_123') }),
      401,
      'invalid_token',
    );
  });

  test('revoked through the console: refused at once on the instance that revoked it', async () => {
    const created = await consoleKey(t, tenant);
    assert.equal((await me(t, created.key)).statusCode, 200);
    const revoke = await call(t.app, {
      method: 'DELETE',
      url: `/api/console/tenants/${tenant.tenantId}/api-keys/${created.id}`,
      headers: bearer(tenant.ownerToken),
    });
    assert.equal(revoke.statusCode, 200, revoke.body);
    assert.ok(revoke.json<{ revokedAt: string | null }>().revokedAt !== null);
    expectError(await me(t, created.key), 401, 'invalid_api_key');
    // Idempotent, as documented: a second revocation answers the key as it is (it was a 500: the
    // revocation log holds one row per key).
    const again = await call(t.app, {
      method: 'DELETE',
      url: `/api/console/tenants/${tenant.tenantId}/api-keys/${created.id}`,
      headers: bearer(tenant.ownerToken),
    });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(
      again.json<{ revokedAt: string }>().revokedAt,
      revoke.json<{ revokedAt: string }>().revokedAt,
    );
  });

  test("other tenant's key: sees only its own tenant, never the other's console or data", async () => {
    const other = await createTestTenant(t);
    const mine = (await me(t, other.apiKey)).json<{ tenant: { id: string } }>();
    assert.equal(mine.tenant.id, other.tenantId);
    // The console is for hosted users only; a key never reaches it, whoever's tenant it names.
    const consoleRes = await call(t.app, {
      method: 'GET',
      url: `/api/console/tenants/${tenant.tenantId}/api-keys`,
      headers: { 'x-api-key': other.apiKey },
    });
    expectError(consoleRes, 401, 'unauthorized');
    // Tenant A's actors are invisible to tenant B's key.
    const session = await connectSession(t, tenant.apiKey);
    const byActor = await call(t.app, {
      method: 'POST',
      url: '/v1/runtime/sessions/revoke',
      headers: { 'x-api-key': other.apiKey },
      payload: { actorId: session.actorId },
    });
    expectError(byActor, 404, 'not_found');
    // A's session id with B's key: not one B issued, so 404 like the actor, and no effect on A's session.
    const bySession = await call(t.app, {
      method: 'POST',
      url: '/v1/runtime/sessions/revoke',
      headers: { 'x-api-key': other.apiKey },
      payload: { sessionId: session.sessionId },
    });
    expectError(bySession, 404, 'not_found');
    await new Promise((resolve) => setTimeout(resolve, t.config.revocationPollMs * 3));
    const still = await call(t.app, { method: 'GET', url: '/v1/me', headers: bearer(session.token) });
    assert.equal(still.statusCode, 200, still.body);
  });

  test('lastUsedAt is collected in memory and written in a batch, not on every request', async () => {
    const created = await consoleKey(t, tenant, { name: 'last-used' });
    const list = async () => {
      const res = await call(t.app, {
        method: 'GET',
        url: `/api/console/tenants/${tenant.tenantId}/api-keys`,
        headers: bearer(tenant.ownerToken),
      });
      const found = res
        .json<{ data: { id: string; lastUsedAt: string | null }[] }>()
        .data.find((k) => k.id === created.id);
      assert.ok(found !== undefined);
      return found.lastUsedAt;
    };
    assert.equal(await list(), null);
    const startedAt = Date.now();
    for (let i = 0; i < 3; i++) assert.equal((await me(t, created.key)).statusCode, 200);
    assert.equal(await list(), null, 'a request must not write lastUsedAt by itself');
    await t.app.identity.apiKeys.flushLastUsed();
    const lastUsed = await list();
    assert.ok(lastUsed !== null);
    assert.ok(
      Date.parse(lastUsed) >= startedAt - 1000 && Date.parse(lastUsed) <= Date.now() + 1000,
      lastUsed,
    );
  });
});
