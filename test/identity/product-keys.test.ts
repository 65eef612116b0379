import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { ManualClock } from '../../src/core/clock.ts';
import { createProductKey } from '../../src/core/tenancy/product-keys.ts';
import { bearer, createApiKey, createTestTenant, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { eventually } from '../support/eventually.ts';
import { expectError } from './support.ts';

/** Routes as a module would declare them: one only for product keys, one that also takes API keys. */
function productRoutes(app: FastifyInstance): void {
  const who = (request: { principal: unknown }) => request.principal;
  app.get(
    '/test/public/who',
    {
      config: { auth: { credentials: ['product'] } },
      schema: { operationId: 'testProductWho', summary: 'test', hide: true },
    },
    async (request) => who(request),
  );
  app.post(
    '/test/ingest/:thing',
    {
      config: { auth: { credentials: ['api_key', 'product'], scope: 'events:write' } },
      schema: { operationId: 'testProductIngest', summary: 'test', hide: true },
    },
    async (request) => who(request),
  );
}

interface Who {
  kind: string;
  tenantId: string;
  productKeyId?: string;
}

async function productKey(
  t: TestApp,
  tenant: TestTenant,
  body: Record<string, unknown> = {},
): Promise<{ id: string; key: string; allowedOrigins: string[]; rateLimitPerMinute: number }> {
  const res = await call(t.app, {
    method: 'POST',
    url: `/api/console/tenants/${tenant.tenantId}/product-keys`,
    headers: bearer(tenant.ownerToken),
    payload: { name: 'storefront', ...body },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

const who = (t: TestApp, headers: Record<string, string>, remoteAddress = '198.51.100.1') =>
  call(t.app, { method: 'GET', url: '/test/public/who', headers, remoteAddress });

describe('product keys as a credential (X-SVC-Product-Key)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;

  before(async () => {
    t = await buildTestApp({ config: { authFailureLimit: 1_000_000 }, extend: productRoutes });
    tenant = await createTestTenant(t);
    other = await createTestTenant(t);
  });
  after(() => t.close());

  test('a valid key resolves to its tenant and key; another tenant’s key to its own tenant', async () => {
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

  test('allowed origins: an allowed origin gets CORS headers, another 403 without them, no Origin passes', async () => {
    const created = await productKey(t, tenant, {
      allowedOrigins: ['https://Shop.Example.com', 'https://*.brand.test', 'http://localhost:3000'],
    });
    assert.deepEqual(created.allowedOrigins, [
      'https://shop.example.com',
      'https://*.brand.test',
      'http://localhost:3000',
    ]);
    const key = { 'x-svc-product-key': created.key };
    for (const origin of ['https://shop.example.com', 'https://eu.brand.test', 'http://localhost:3000']) {
      const res = await who(t, { ...key, origin });
      assert.equal(res.statusCode, 200, `${origin}: ${res.body}`);
      assert.equal(res.headers['access-control-allow-origin'], origin);
      assert.match(String(res.headers.vary), /Origin/);
      assert.match(String(res.headers['access-control-expose-headers']), /ETag/);
    }
    for (const origin of ['https://evil.example', 'https://brand.test', 'http://shop.example.com', 'null']) {
      const res = await who(t, { ...key, origin });
      const body = expectError(res, 403, 'forbidden');
      assert.match(body.message, /origin/);
      assert.equal(res.headers['access-control-allow-origin'], undefined);
    }
    // No Origin: not a browser (a server, a phone app); the restriction is a browser's.
    assert.equal((await who(t, key)).statusCode, 200);
    // Refusals before the key is known stay readable by the page that made them.
    const unknown = await who(t, {
      'x-svc-product-key': 'pk_live_BBBBBBBBBBBBBBBBBBBBBBBB',
      origin: 'https://x.test',
    });
    expectError(unknown, 401, 'invalid_api_key');
    assert.equal(unknown.headers['access-control-allow-origin'], 'https://x.test');
  });

  test('origins changed in the console apply at once; bad origins are refused with details', async () => {
    const created = await productKey(t, tenant, { allowedOrigins: ['https://a.test'] });
    const key = { 'x-svc-product-key': created.key };
    assert.equal((await who(t, { ...key, origin: 'https://a.test' })).statusCode, 200);
    const url = `/api/console/tenants/${tenant.tenantId}/product-keys/${created.id}`;
    const patch = await call(t.app, {
      method: 'PATCH',
      url,
      headers: bearer(tenant.ownerToken),
      payload: { allowedOrigins: ['https://b.test'] },
    });
    assert.equal(patch.statusCode, 200, patch.body);
    expectError(await who(t, { ...key, origin: 'https://a.test' }), 403, 'forbidden');
    assert.equal((await who(t, { ...key, origin: 'https://b.test' })).statusCode, 200);
    for (const bad of ['shop.example.com', 'https://shop.example.com/path', 'https://', 'https://a b']) {
      const res = await call(t.app, {
        method: 'PATCH',
        url,
        headers: bearer(tenant.ownerToken),
        payload: { allowedOrigins: [bad] },
      });
      const body = expectError(res, 400, 'invalid_request');
      assert.equal(body.details?.[0]?.field, '/body/allowedOrigins/0');
    }
    const empty = await call(t.app, {
      method: 'PATCH',
      url,
      headers: bearer(tenant.ownerToken),
      payload: {},
    });
    expectError(empty, 400, 'invalid_request');
  });

  test('preflight: answered for routes that accept product keys, with the headers they take', async () => {
    const res = await call(t.app, {
      method: 'OPTIONS',
      url: '/test/ingest/abc?x=1',
      headers: {
        origin: 'https://shop.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-svc-product-key, content-type',
      },
    });
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(res.headers['access-control-allow-origin'], 'https://shop.example.com');
    assert.equal(res.headers['access-control-allow-methods'], 'POST');
    assert.match(String(res.headers['access-control-allow-headers']), /X-SVC-Product-Key/);
    assert.match(String(res.headers['access-control-allow-headers']), /X-API-Key/);
    assert.ok(Number(res.headers['access-control-max-age']) > 0);
    // A method the route does not have, or a route that takes no product key: no CORS answer.
    const wrongMethod = await call(t.app, {
      method: 'OPTIONS',
      url: '/test/ingest/abc',
      headers: { origin: 'https://shop.example.com', 'access-control-request-method': 'DELETE' },
    });
    assert.equal(wrongMethod.headers['access-control-allow-origin'], undefined);
    const notProduct = await call(t.app, {
      method: 'OPTIONS',
      url: '/v1/me',
      headers: { origin: 'https://shop.example.com', 'access-control-request-method': 'GET' },
    });
    assert.equal(notProduct.statusCode, 404);
    assert.equal(notProduct.headers['access-control-allow-origin'], undefined);
  });

  test('a route that opts in: the key needs no scope; an API key still does; one credential only', async () => {
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

describe('product key rate limit per key and client address', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let clock: ManualClock;

  before(async () => {
    clock = new ManualClock(Date.now());
    t = await buildTestApp({ config: { authFailureLimit: 1_000_000 }, clock, extend: productRoutes });
    tenant = await createTestTenant(t);
  });
  after(() => t.close());

  test('past the key’s rate -> 429 rate_limited with Retry-After, for that key and address only', async () => {
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
