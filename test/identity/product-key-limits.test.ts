import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.ts';
import { createProductKey } from '../../src/core/tenancy/product-keys.ts';
import { bearer, createTestTenant, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { eventually } from '../support/eventually.ts';
import { appSuite } from '../support/suite.ts';
import { productKey, productRoutes, who } from './product-key-support.ts';
import { expectError } from './support.ts';

describe('product key rate limit per key and client address', () => {
  const clock = new ManualClock(Date.now());
  const s = appSuite({ config: { authFailureLimit: 1_000_000 }, clock, extend: productRoutes });

  test('past the key’s rate -> 429 rate_limited with Retry-After, for that key and address only', async () => {
    const { t, tenant } = s;
    // Made with the verb: console tokens are signed on the real clock, which this app's clock lags.
    const make = () =>
      createProductKey(
        { db: t.db, tenantId: tenant.tenantId, clock },
        { name: 'limited', rateLimitPerMinute: 3 },
      );
    const limited = await make();
    const spare = await make();
    const key = { 'x-svc-product-key': limited.key };
    for (let i = 0; i < 3; i++) assert.equal((await who(t, key, '203.0.113.20')).statusCode, 200);
    const refused = await who(t, key, '203.0.113.20');
    const body = expectError(refused, 429, 'rate_limited');
    assert.match(body.message, /3 requests per minute/);
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(
      Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
      `Retry-After ${retryAfter}`,
    );
    // Another address with the same key, and the same address with another key, are unaffected.
    assert.equal((await who(t, key, '203.0.113.21')).statusCode, 200);
    assert.equal((await who(t, { 'x-svc-product-key': spare.key }, '203.0.113.20')).statusCode, 200);
    // Once the window has passed, the address may call again.
    clock.advance(60_000);
    assert.equal((await who(t, key, '203.0.113.20')).statusCode, 200);
  });
});

describe('product key revocation across two instances on one database', () => {
  let a: TestApp;
  let b: TestApp;
  let tenant: TestTenant;

  before(async () => {
    a = await buildTestApp({ config: { authFailureLimit: 1_000_000 }, extend: productRoutes });
    b = await buildTestApp({
      config: { authFailureLimit: 1_000_000 },
      extend: productRoutes,
      ...(a.db.kind === 'pglite' ? { db: a.db } : {}),
    });
    tenant = await createTestTenant(a);
  });
  after(async () => {
    await b.close();
    await a.close();
  });

  test('revoked on instance A, refused by instance B (which had it cached) within its poll', async () => {
    const created = await productKey(a, tenant);
    const key = { 'x-svc-product-key': created.key };
    assert.equal((await who(b, key)).statusCode, 200);
    const revoke = await call(a.app, {
      method: 'DELETE',
      url: `/api/console/tenants/${tenant.tenantId}/product-keys/${created.id}`,
      headers: bearer(tenant.ownerToken),
    });
    assert.equal(revoke.statusCode, 200, revoke.body);
    await eventually(
      'instance B to refuse the revoked key',
      async () => (await who(b, key)).statusCode === 401,
      {
        timeoutMs: 3000,
        stepMs: 10,
      },
    );
    expectError(await who(b, key), 401, 'invalid_api_key');
  });
});
