import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, createTestTenant, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { eventually } from '../support/eventually.ts';
import { consoleKey, expectError, me } from './support.ts';

describe('API key revocation across two instances on one database', () => {
  let a: TestApp;
  let b: TestApp;
  let tenant: TestTenant;

  before(async () => {
    a = await buildTestApp({ config: { authFailureLimit: 1_000_000 } });
    // PGlite is one process's database: share the handle. PostgreSQL: a second pool, as a second instance has.
    b = await buildTestApp({
      config: { authFailureLimit: 1_000_000 },
      ...(a.db.kind === 'pglite' ? { db: a.db } : {}),
    });
    tenant = await createTestTenant(a);
  });
  after(async () => {
    await b.close();
    await a.close();
  });

  test('revoked on instance A, refused by instance B within a second', async (ctx) => {
    const created = await consoleKey(a, tenant);
    assert.equal((await me(a, created.key)).statusCode, 200);
    // B has verified (and cached) the key before the revocation.
    assert.equal((await me(b, created.key)).statusCode, 200);
    const revoke = await call(a.app, {
      method: 'DELETE',
      url: `/api/console/tenants/${tenant.tenantId}/api-keys/${created.id}`,
      headers: bearer(tenant.ownerToken),
    });
    assert.equal(revoke.statusCode, 200, revoke.body);
    const revokedAt = Date.now();
    await eventually(
      'instance B to refuse the revoked key',
      async () => (await me(b, created.key)).statusCode === 401,
      {
        timeoutMs: 3000,
        stepMs: 10,
      },
    );
    ctx.diagnostic(`instance B refused the revoked key after ${Date.now() - revokedAt} ms`);
    expectError(await me(b, created.key), 401, 'invalid_api_key');
    expectError(await me(a, created.key), 401, 'invalid_api_key');
  });
});
