import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer, createApiKey, createTestTenant } from '../factories.ts';
import { buildTestApp, call } from '../helper.ts';
import { appSuite } from '../support/suite.ts';
import { productKey, productRoutes, type Who, who } from './product-key-support.ts';
import { expectError } from './support.ts';

describe('product keys as a credential (X-SVC-Product-Key)', () => {
  const s = appSuite({ tenants: 2, config: { authFailureLimit: 1_000_000 }, extend: productRoutes });

  test('a valid key resolves to its tenant and key; another tenant’s key to its own tenant', async () => {
    const { t, tenant, tenants } = s;
    const other = tenants[1];
    assert.ok(other !== undefined);
    const mine = await productKey(t, tenant);
    const theirs = await productKey(t, other);
    for (let i = 0; i < 2; i++) {
      // The second round is answered from the cache.
      const res = await who(t, { 'x-svc-product-key': mine.key });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json<Who>();
      assert.deepEqual([body.kind, body.tenantId, body.productKeyId], ['product', tenant.tenantId, mine.id]);
      const theirsRes = (await who(t, { 'x-svc-product-key': theirs.key })).json<Who>();
      assert.equal(theirsRes.tenantId, other.tenantId);
    }
  });

  test('missing, unknown or malformed -> 401 invalid_api_key naming the header', async () => {
    const { t, tenant } = s;
    const missing = expectError(await who(t, {}), 401, 'invalid_api_key');
    assert.match(missing.message, /X-SVC-Product-Key/);
    for (const value of ['pk_live_AAAAAAAAAAAAAAAAAAAAAAAA', 'pk_live_short', 'nonsense', '']) {
      const body = expectError(await who(t, { 'x-svc-product-key': value }), 401, 'invalid_api_key');
      assert.match(body.message, /X-SVC-Product-Key/);
    }
    // A key's id is not the key.
    const created = await productKey(t, tenant);
    expectError(await who(t, { 'x-svc-product-key': created.id }), 401, 'invalid_api_key');
  });

  test('revoked in the console: refused at once by the instance that revoked it, cached or not', async () => {
    const { t, tenant } = s;
    const created = await productKey(t, tenant);
    assert.equal((await who(t, { 'x-svc-product-key': created.key })).statusCode, 200);
    const revoke = await call(t.app, {
      method: 'DELETE',
      url: `/api/console/tenants/${tenant.tenantId}/product-keys/${created.id}`,
      headers: bearer(tenant.ownerToken),
    });
    assert.equal(revoke.statusCode, 200, revoke.body);
    expectError(await who(t, { 'x-svc-product-key': created.key }), 401, 'invalid_api_key');
  });

  test('a route that opts in: the key needs no scope; an API key still does; one credential only', async () => {
    const { t, tenant } = s;
    const created = await productKey(t, tenant);
    const post = (headers: Record<string, string>) =>
      call(t.app, { method: 'POST', url: '/test/ingest/x', headers, payload: {} });
    const viaKey = await post({ 'x-svc-product-key': created.key });
    assert.equal(viaKey.statusCode, 200, viaKey.body);
    assert.equal(viaKey.json<Who>().kind, 'product');
    const narrow = await createApiKey(t, tenant.tenantId, ['rooms:read']);
    expectError(await post({ 'x-api-key': narrow }), 403, 'insufficient_scope');
    assert.equal((await post({ 'x-api-key': tenant.apiKey })).statusCode, 200);
    expectError(
      await post({ 'x-api-key': tenant.apiKey, 'x-svc-product-key': created.key }),
      400,
      'invalid_request',
    );
    // A product key is no credential on routes that do not name it, and says so.
    const me = await call(t.app, {
      method: 'GET',
      url: '/v1/me',
      headers: { 'x-svc-product-key': created.key },
    });
    const refused = expectError(me, 401, 'unauthorized');
    assert.match(refused.message, /product key/);
    // Sent beside the credential such a route takes, it is ignored.
    const withKey = await call(t.app, {
      method: 'GET',
      url: '/v1/me',
      headers: { 'x-api-key': tenant.apiKey, 'x-svc-product-key': created.key },
    });
    assert.equal(withKey.statusCode, 200, withKey.body);
  });

  test('a missing key does not count as a failed authentication of the address', async () => {
    const strict = await buildTestApp({ config: { authFailureLimit: 2 }, extend: productRoutes });
    try {
      for (let i = 0; i < 5; i++) expectError(await who(strict, {}, '192.0.2.50'), 401, 'invalid_api_key');
      const key = await productKey(strict, await createTestTenant(strict));
      assert.equal((await who(strict, { 'x-svc-product-key': key.key }, '192.0.2.50')).statusCode, 200);
      // Unknown keys do count: guessing is slowed like any other credential.
      for (let i = 0; i < 2; i++) {
        expectError(
          await who(strict, { 'x-svc-product-key': `pk_live_${'C'.repeat(24)}` }, '192.0.2.51'),
          401,
          'invalid_api_key',
        );
      }
      expectError(await who(strict, { 'x-svc-product-key': key.key }, '192.0.2.51'), 429, 'rate_limited');
    } finally {
      await strict.close();
    }
  });
});
