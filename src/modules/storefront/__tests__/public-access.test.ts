import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { appSuite } from '../../../../test/support/suite.ts';
import { publicSuite, withStorefront } from './public-fixture.ts';
import { consoleCall, expectError, makeProductKey, productHeaders } from './support.ts';

/** Who may read /api/public/*: a live product key, from an allowed origin, within its rate. */
describe('public surface: keys, origins and preflight', () => {
  const s = publicSuite();
  const { get } = s;

  test('no key, an unknown key, a revoked key: 401 invalid_api_key naming the header', async () => {
    const { t, tenant, ids } = s.world();
    const created = await makeProductKey(t, tenant);
    assert.equal((await get('/api/public/brand', productHeaders(created.key))).statusCode, 200);
    const revoke = await consoleCall(
      t,
      tenant,
      'DELETE',
      `/api/console/tenants/${tenant.tenantId}/product-keys/${created.id}`,
    );
    assert.equal(revoke.statusCode, 200, revoke.body);
    for (const url of ['/api/public/brand', '/api/public/auctions', `/api/public/auctions/${ids.live}`]) {
      for (const headers of [
        {},
        productHeaders('pk_live_000000000000000000000000'),
        productHeaders(created.key),
      ]) {
        const body = expectError(await get(url, headers), 401, 'invalid_api_key');
        assert.match(body.message, /X-SVC-Product-Key/);
      }
      // A secret API key or a console token is not what these routes take.
      expectError(await get(url, { 'x-api-key': tenant.apiKey }), 401, 'unauthorized');
      expectError(await get(url, bearer(tenant.ownerToken)), 401, 'unauthorized');
    }
  });

  test("disallowed origins: the key's own list and the storefront's both apply", async () => {
    const { t, tenant, key, ids } = s.world();
    const limited = await makeProductKey(t, tenant, { allowedOrigins: ['https://shop.example'] });
    for (const url of ['/api/public/brand', '/api/public/auctions', `/api/public/auctions/${ids.live}`]) {
      const ok = await get(url, productHeaders(limited.key, { origin: 'https://shop.example' }));
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(ok.headers['access-control-allow-origin'], 'https://shop.example');
      const refused = await get(url, productHeaders(limited.key, { origin: 'https://evil.example' }));
      expectError(refused, 403, 'forbidden');
      assert.equal(refused.headers['access-control-allow-origin'], undefined);
    }
    await withStorefront(t, tenant, { allowedOrigins: ['https://brand.example'] }, async () => {
      // An unrestricted key on the storefront's origin passes; elsewhere the storefront refuses.
      assert.equal(
        (await get('/api/public/brand', productHeaders(key, { origin: 'https://brand.example' }))).statusCode,
        200,
      );
      const refused = await get(
        '/api/public/brand',
        productHeaders(key, { origin: 'https://elsewhere.example' }),
      );
      expectError(refused, 403, 'forbidden');
      assert.equal(refused.headers['access-control-allow-origin'], undefined);
    });
  });

  test('preflight of a public route: 204 with the headers a browser needs', async () => {
    const { t } = s.world();
    const res = await call(t.app, {
      method: 'OPTIONS',
      url: '/api/public/auctions',
      headers: {
        origin: 'https://shop.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-svc-product-key, if-none-match',
      },
    });
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(res.headers['access-control-allow-origin'], 'https://shop.example');
    assert.match(String(res.headers['access-control-allow-headers']), /X-SVC-Product-Key/);
    assert.match(String(res.headers['access-control-allow-headers']), /If-None-Match/);
  });
});

describe('public surface: rate limit per key and address', () => {
  const s = appSuite({ config: { authFailureLimit: 1_000_000 } });

  test('past the key’s rate: 429 rate_limited with Retry-After; another address is unaffected', async () => {
    const { key } = await makeProductKey(s.t, s.tenant, { rateLimitPerMinute: 2 });
    const get = (remoteAddress: string) =>
      call(s.t.app, { method: 'GET', url: '/api/public/brand', headers: productHeaders(key), remoteAddress });
    assert.equal((await get('203.0.113.5')).statusCode, 200);
    assert.equal((await get('203.0.113.5')).statusCode, 200);
    const limited = await get('203.0.113.5');
    expectError(limited, 429, 'rate_limited');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal((await get('203.0.113.6')).statusCode, 200);
  });
});
