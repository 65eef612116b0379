import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  AUCTION_FIELDS,
  BRAND_FIELDS,
  PAGE_FIELDS,
  type PublicAuction,
  publicSuite,
  withStorefront,
} from './public-fixture.ts';
import { bid, consoleCall, expectError, makeOperator, productHeaders } from './support.ts';

/** What /api/public/* shows a product key: the brand, and the published auctions, only their public fields. */
describe('public surface: /api/public/* with product keys', () => {
  const s = publicSuite();
  const { get, listed } = s;

  test('brand: the tenant name by default, then the configured brand; only public fields', async () => {
    const { t, tenant, key } = s.world();
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
    const { otherKey, ids } = s.world();
    const brand = (await get('/api/public/brand', productHeaders(otherKey))).json<{ name: string }>();
    assert.equal(brand.name, 'Tenant B');
    assert.deepEqual(await listed('/api/public/auctions', productHeaders(otherKey)), [ids.otherTenant]);
    expectError(await get(`/api/public/auctions/${ids.live}`, productHeaders(otherKey)), 404, 'not_found');
  });

  test('auctions: published only, live first then scheduled; drafts and unpublished never', async () => {
    const { key, ids } = s.world();
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
    const { key, ids } = s.world();
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
    const { key, otherRoom, ids } = s.world();
    assert.deepEqual(await listed('/api/public/auctions?status=live', productHeaders(key)), [ids.live]);
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
    const { t, tenant, key, otherRoom, ids } = s.world();
    await withStorefront(t, tenant, { listing: { roomIds: [otherRoom] } }, async () => {
      assert.deepEqual(await listed('/api/public/auctions', productHeaders(key)), [ids.scheduled]);
      expectError(await get(`/api/public/auctions/${ids.live}`, productHeaders(key)), 404, 'not_found');
    });
  });

  test('ETag and Cache-Control on every answer; If-None-Match -> 304; a change shows at once', async () => {
    const { t, tenant, key, ids } = s.world();
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

  test("an operator's key: its brand over the tenant's, field by field, and its listing", async () => {
    const { t, tenant, roomId, ids } = s.world();
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
    assert.deepEqual(await listed('/api/public/auctions', productHeaders(opKey.key)), [ids.live]);
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
