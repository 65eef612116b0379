import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer } from '../factories.ts';
import { call } from '../helper.ts';
import { appSuite } from '../support/suite.ts';
import { productKey, productRoutes, who } from './product-key-support.ts';
import { expectError } from './support.ts';

describe('product keys in the browser: allowed origins, CORS and preflight', () => {
  const s = appSuite({ config: { authFailureLimit: 1_000_000 }, extend: productRoutes });

  test('allowed origins: an allowed origin gets CORS headers, another 403 without them, no Origin passes', async () => {
    const { t, tenant } = s;
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
    const { t, tenant } = s;
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
    const { t } = s;
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
});
