import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, createTestTenant, type TestTenant } from '../../../../test/factories.ts';
import { buildTestApp, call, type TestApp } from '../../../../test/helper.ts';
import {
  bid,
  consoleCall,
  expectError,
  makeAuction,
  makeOperator,
  makeProductKey,
  makeRoom,
  productHeaders,
} from './support.ts';

/** Every field a public answer may carry: anything else is a leak. */
const BRAND_FIELDS = [
  'colors',
  'coverImageUrl',
  'defaultCurrency',
  'defaultLocale',
  'links',
  'logoUrl',
  'name',
  'operator',
  'shortDescription',
  'slogan',
];
const AUCTION_FIELDS = [
  'bidCount',
  'buyNowAvailable',
  'buyNowPrice',
  'currency',
  'currentPrice',
  'description',
  'endedAt',
  'endsAt',
  'finalPrice',
  'hasReserve',
  'id',
  'images',
  'minimumBid',
  'outcome',
  'reserveMet',
  'roomId',
  'startingPrice',
  'startsAt',
  'status',
  'title',
  'updatedAt',
];
const PAGE_FIELDS = ['data', 'nextCursor'];

interface PublicAuction {
  id: string;
  status: string;
  roomId: string;
  images: string[];
  reserveMet: boolean;
  hasReserve: boolean;
  currentPrice: number | null;
  bidCount: number;
  [field: string]: unknown;
}

describe('public surface: /api/public/* with product keys', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  let key: string;
  let otherKey: string;
  let roomId: string;
  let otherRoom: string;
  const ids = { live: '', scheduled: '', draft: '', unpublished: '', otherTenant: '' };

  before(async () => {
    t = await buildTestApp({ config: { authFailureLimit: 1_000_000 } });
    tenant = await createTestTenant(t, { name: 'Tenant A' });
    other = await createTestTenant(t, { name: 'Tenant B' });
    key = (await makeProductKey(t, tenant)).key;
    otherKey = (await makeProductKey(t, other)).key;
    roomId = await makeRoom(t, tenant.apiKey);
    otherRoom = await makeRoom(t, tenant.apiKey);
    ids.live = await makeAuction(
      t,
      tenant.apiKey,
      roomId,
      {
        published: true,
        reservePrice: 20000,
        metadata: {
          image: 'https://img.example/1.jpg',
          images: 'https://img.example/2.jpg, not-a-url https://img.example/1.jpg',
          sku: 'private-sku',
        },
      },
      'live',
    );
    ids.scheduled = await makeAuction(t, tenant.apiKey, otherRoom, { published: true }, 'scheduled');
    ids.draft = await makeAuction(t, tenant.apiKey, roomId, { published: true });
    ids.unpublished = await makeAuction(t, tenant.apiKey, roomId, { published: false }, 'live');
    ids.otherTenant = await makeAuction(
      t,
      other.apiKey,
      await makeRoom(t, other.apiKey),
      { published: true },
      'live',
    );
    await bid(t, tenant.apiKey, ids.live, 1000, 9000);
    await bid(t, tenant.apiKey, ids.live, 2000);
  });
  after(() => t.close());

  const get = (url: string, headers: Record<string, string>) => call(t.app, { method: 'GET', url, headers });

  test('brand: the tenant name by default, then the configured brand; only public fields', async () => {
    const first = await get('/api/public/brand', productHeaders(key));
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json<{ name: string }>().name, 'Tenant A');
    const put = await consoleCall(t, tenant, 'PUT', `/api/console/tenants/${tenant.tenantId}/storefront`, {
      brand: {
        name: 'Auction House',
        slogan: 'Bid live',
        shortDescription: 'Live auctions every night',
        logoUrl: 'https://cdn.example/logo.png',
        colors: { primary: '#112233', accent: '#AABBCC' },
        links: [{ label: 'Instagram', url: 'https://instagram.com/house' }],
      },
      defaultLocale: 'pt-BR',
      defaultCurrency: 'BRL',
    });
    assert.equal(put.statusCode, 200, put.body);
    const res = await get('/api/public/brand', productHeaders(key));
    const body = res.json<Record<string, unknown>>();
    assert.deepEqual(Object.keys(body).sort(), BRAND_FIELDS);
    assert.equal(body.name, 'Auction House');
    assert.deepEqual(body.colors, { primary: '#112233', accent: '#AABBCC' });
    assert.equal(body.defaultCurrency, 'BRL');
    assert.equal(body.operator, null);
  });

  test("another tenant's key sees its own tenant's brand and auctions, never the first tenant's", async () => {
    const brand = (await get('/api/public/brand', productHeaders(otherKey))).json<{ name: string }>();
    assert.equal(brand.name, 'Tenant B');
    const list = (await get('/api/public/auctions', productHeaders(otherKey))).json<{
      data: PublicAuction[];
    }>();
    assert.deepEqual(
      list.data.map((a) => a.id),
      [ids.otherTenant],
    );
    expectError(await get(`/api/public/auctions/${ids.live}`, productHeaders(otherKey)), 404, 'not_found');
  });

  test('auctions: published only, live first then scheduled; drafts and unpublished never', async () => {
    const res = await get('/api/public/auctions', productHeaders(key));
    assert.equal(res.statusCode, 200, res.body);
    const page = res.json<{ data: PublicAuction[]; nextCursor: string | null }>();
    assert.deepEqual(Object.keys(page).sort(), PAGE_FIELDS);
    assert.deepEqual(
      page.data.map((a) => [a.id, a.status]),
      [
        [ids.live, 'live'],
        [ids.scheduled, 'scheduled'],
      ],
    );
    for (const auction of page.data) assert.deepEqual(Object.keys(auction).sort(), AUCTION_FIELDS);
    for (const hidden of [ids.draft, ids.unpublished]) {
      expectError(await get(`/api/public/auctions/${hidden}`, productHeaders(key)), 404, 'not_found');
    }
  });

  test('one auction: price and bid count, whether the reserve is met; never maxima, bidders or the reserve', async () => {
    const res = await get(`/api/public/auctions/${ids.live}`, productHeaders(key));
    assert.equal(res.statusCode, 200, res.body);
    const auction = res.json<PublicAuction>();
    assert.deepEqual(Object.keys(auction).sort(), AUCTION_FIELDS);
    assert.deepEqual(auction.images, ['https://img.example/1.jpg', 'https://img.example/2.jpg']);
    assert.equal(auction.bidCount, 2);
    assert.equal(auction.hasReserve, true);
    assert.equal(auction.reserveMet, false);
    assert.ok(auction.currentPrice !== null && auction.currentPrice < 9000);
    for (const secret of [
      '9000',
      '20000',
      'bidder',
      'test:',
      'private-sku',
      'leader',
      'winner',
      'metadata',
    ]) {
      assert.ok(!res.body.includes(secret), `the public answer holds ${secret}: ${res.body}`);
    }
  });

  test('filters by status and room, and pages with a cursor', async () => {
    const live = (await get('/api/public/auctions?status=live', productHeaders(key))).json<{
      data: PublicAuction[];
    }>();
    assert.deepEqual(
      live.data.map((a) => a.id),
      [ids.live],
    );
    const inRoom = await get(`/api/public/auctions?roomId=${otherRoom}`, productHeaders(key));
    assert.deepEqual(
      inRoom.json<{ data: PublicAuction[] }>().data.map((a) => a.id),
      [ids.scheduled],
    );
    const first = (await get('/api/public/auctions?limit=1', productHeaders(key))).json<{
      data: PublicAuction[];
      nextCursor: string | null;
    }>();
    assert.deepEqual(
      first.data.map((a) => a.id),
      [ids.live],
    );
    assert.ok(first.nextCursor !== null);
    const second = (
      await get(`/api/public/auctions?limit=1&cursor=${first.nextCursor}`, productHeaders(key))
    ).json<{ data: PublicAuction[]; nextCursor: string | null }>();
    assert.deepEqual(
      second.data.map((a) => a.id),
      [ids.scheduled],
    );
    assert.equal(second.nextCursor, null);
    expectError(await get('/api/public/auctions?cursor=bogus', productHeaders(key)), 400, 'invalid_request');
    expectError(await get('/api/public/auctions?status=draft', productHeaders(key)), 400, 'invalid_request');
  });

  test('the storefront listing limits the rooms shown', async () => {
    const url = `/api/console/tenants/${tenant.tenantId}/storefront`;
    const current = (await consoleCall(t, tenant, 'GET', url)).json<Record<string, unknown>>();
    const limited = await consoleCall(t, tenant, 'PUT', url, {
      brand: current.brand as Record<string, unknown>,
      listing: { roomIds: [otherRoom] },
    });
    assert.equal(limited.statusCode, 200, limited.body);
    try {
      const list = (await get('/api/public/auctions', productHeaders(key))).json<{ data: PublicAuction[] }>();
      assert.deepEqual(
        list.data.map((a) => a.id),
        [ids.scheduled],
      );
      expectError(await get(`/api/public/auctions/${ids.live}`, productHeaders(key)), 404, 'not_found');
    } finally {
      await consoleCall(t, tenant, 'PUT', url, { brand: current.brand as Record<string, unknown> });
    }
  });

  test('ETag and Cache-Control on every answer; If-None-Match -> 304; a change shows at once', async () => {
    for (const url of ['/api/public/brand', '/api/public/auctions', `/api/public/auctions/${ids.live}`]) {
      const res = await get(url, productHeaders(key));
      assert.equal(res.statusCode, 200, res.body);
      const etag = String(res.headers.etag);
      assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
      assert.equal(res.headers['cache-control'], 'public, max-age=1');
      assert.match(String(res.headers.vary), /X-SVC-Product-Key/);
      const again = await get(url, productHeaders(key, { 'if-none-match': etag }));
      assert.equal(again.statusCode, 304, `${url}: ${again.body}`);
      assert.equal(again.body, '');
      assert.equal(again.headers.etag, etag);
      const stale = await get(url, productHeaders(key, { 'if-none-match': '"stale"' }));
      assert.equal(stale.statusCode, 200);
    }
    const before = await get(`/api/public/auctions/${ids.live}`, productHeaders(key));
    await bid(t, tenant.apiKey, ids.live, 3000);
    const after = await get(
      `/api/public/auctions/${ids.live}`,
      productHeaders(key, { 'if-none-match': `${before.headers.etag}` }),
    );
    assert.equal(after.statusCode, 200, 'a new bid changes the ETag');
    assert.equal(after.json<PublicAuction>().bidCount, 3);
  });

  test('no key, an unknown key, a revoked key: 401 invalid_api_key naming the header', async () => {
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
    const limited = await makeProductKey(t, tenant, { allowedOrigins: ['https://shop.example'] });
    for (const url of ['/api/public/brand', '/api/public/auctions', `/api/public/auctions/${ids.live}`]) {
      const ok = await get(url, productHeaders(limited.key, { origin: 'https://shop.example' }));
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(ok.headers['access-control-allow-origin'], 'https://shop.example');
      const refused = await get(url, productHeaders(limited.key, { origin: 'https://evil.example' }));
      expectError(refused, 403, 'forbidden');
      assert.equal(refused.headers['access-control-allow-origin'], undefined);
    }
    const url = `/api/console/tenants/${tenant.tenantId}/storefront`;
    const current = (await consoleCall(t, tenant, 'GET', url)).json<Record<string, unknown>>();
    await consoleCall(t, tenant, 'PUT', url, {
      brand: current.brand as Record<string, unknown>,
      allowedOrigins: ['https://brand.example'],
    });
    try {
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
    } finally {
      await consoleCall(t, tenant, 'PUT', url, { brand: current.brand as Record<string, unknown> });
    }
  });

  test('preflight of a public route: 204 with the headers a browser needs', async () => {
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

  test("an operator's key: its brand over the tenant's, field by field, and its listing", async () => {
    const operator = await makeOperator(t, tenant, {
      name: 'Vintage Vinyl',
      brand: { name: 'Vintage Vinyl', colors: { primary: '#000000' } },
      listing: { roomIds: [roomId] },
    });
    const res = await consoleCall(t, tenant, 'POST', `/api/console/operators/${operator.id}/product-keys`, {
      name: 'vinyl app',
    });
    assert.equal(res.statusCode, 201, res.body);
    const opKey = res.json<{ key: string; operatorId: string }>();
    assert.equal(opKey.operatorId, operator.id);
    const brand = (await get('/api/public/brand', productHeaders(opKey.key))).json<Record<string, unknown>>();
    assert.equal(brand.name, 'Vintage Vinyl');
    assert.equal(brand.slogan, 'Bid live');
    assert.deepEqual(brand.colors, { primary: '#000000', accent: '#AABBCC' });
    assert.deepEqual(brand.operator, { id: operator.id, name: 'Vintage Vinyl', slug: operator.slug });
    const list = (await get('/api/public/auctions', productHeaders(opKey.key))).json<{
      data: PublicAuction[];
    }>();
    assert.deepEqual(
      list.data.map((a) => a.id),
      [ids.live],
    );
    // Deleting the operator takes its keys along, at once.
    const deleted = await consoleCall(
      t,
      tenant,
      'DELETE',
      `/api/console/tenants/${tenant.tenantId}/operators/${operator.id}`,
    );
    assert.equal(deleted.statusCode, 200, deleted.body);
    expectError(await get('/api/public/brand', productHeaders(opKey.key)), 401, 'invalid_api_key');
  });
});

describe('public surface: rate limit per key and address', () => {
  let t: TestApp;
  let tenant: TestTenant;
  before(async () => {
    t = await buildTestApp({ config: { authFailureLimit: 1_000_000 } });
    tenant = await createTestTenant(t);
  });
  after(() => t.close());

  test('past the key’s rate: 429 rate_limited with Retry-After; another address is unaffected', async () => {
    const { key } = await makeProductKey(t, tenant, { rateLimitPerMinute: 2 });
    const get = (remoteAddress: string) =>
      call(t.app, { method: 'GET', url: '/api/public/brand', headers: productHeaders(key), remoteAddress });
    assert.equal((await get('203.0.113.5')).statusCode, 200);
    assert.equal((await get('203.0.113.5')).statusCode, 200);
    const limited = await get('203.0.113.5');
    expectError(limited, 429, 'rate_limited');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal((await get('203.0.113.6')).statusCode, 200);
  });
});
