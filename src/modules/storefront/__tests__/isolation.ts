import assert from 'node:assert/strict';
import { call } from '../../../../test/helper.ts';
import { defineIsolation, type IsolationCase } from '../../../../test/support/isolation-suite.ts';
import { oneRoom } from '../../../../test/support/security-suite.ts';

interface Records {
  operatorId: string;
  buildId: string;
  auctionId: string;
}

/** An auction the public surface lists once it starts. */
const PUBLISHED = { currency: 'EUR', startingPrice: 100, durationSeconds: 600, published: true };

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A console route under B's tenant (`tenant`) or under B's operator (`operator`); `:operatorId` is B's. */
const under =
  (
    scope: 'tenant' | 'operator',
    method: Method,
    tail: string,
    payload?: Record<string, unknown>,
  ): IsolationCase<Records> =>
  (r, { b }) => {
    const base =
      scope === 'tenant' ? `/api/console/tenants/${b.tenantId}` : `/api/console/operators/${r.operatorId}`;
    const url = `${base}${tail.replace(':operatorId', r.operatorId)}`;
    return { method, url, ...(payload === undefined ? {} : { payload }) };
  };

/** Tenant B's operator and its mobile build, and a published live auction the public surface shows. */
export const isolation = defineIsolation({
  module: 'storefront',
  async setup({ t, b, inB, marker }) {
    const operator = await inB(
      `/api/console/tenants/${b.tenantId}/operators`,
      { name: marker, slug: 'b-operator' },
      { console: true },
    );
    const operatorId = operator.json<{ id: string }>().id;
    const build = await inB(
      `/api/console/operators/${operatorId}/mobile-build`,
      { platform: 'android' },
      { console: true, status: 200 },
    );
    const { roomId } = await oneRoom(t, b);
    const auction = await inB('/v1/auctions', { ...PUBLISHED, roomId, title: marker });
    const auctionId = auction.json<{ id: string }>().id;
    await inB(`/v1/auctions/${auctionId}/start`, undefined, { status: 200 });
    return { operatorId, buildId: build.json<{ build: { id: string } }>().build.id, auctionId };
  },
  cases: {
    console: {
      'GET /api/console/tenants/:tenantId/storefront': under('tenant', 'GET', '/storefront'),
      'PUT /api/console/tenants/:tenantId/storefront': under('tenant', 'PUT', '/storefront', {
        brand: { name: 'taken' },
      }),
      'POST /api/console/tenants/:tenantId/operators': under('tenant', 'POST', '/operators', {
        name: 'x',
        slug: 'x',
      }),
      'GET /api/console/tenants/:tenantId/operators': under('tenant', 'GET', '/operators'),
      'GET /api/console/tenants/:tenantId/operators/:operatorId': under(
        'tenant',
        'GET',
        '/operators/:operatorId',
      ),
      'PATCH /api/console/tenants/:tenantId/operators/:operatorId': under(
        'tenant',
        'PATCH',
        '/operators/:operatorId',
        {
          name: 'taken',
        },
      ),
      'DELETE /api/console/tenants/:tenantId/operators/:operatorId': under(
        'tenant',
        'DELETE',
        '/operators/:operatorId',
      ),
      'GET /api/console/operators/:operatorId/storefront': under('operator', 'GET', '/storefront'),
      'PUT /api/console/operators/:operatorId/storefront': under('operator', 'PUT', '/storefront', {
        brand: { name: 'taken' },
      }),
      'POST /api/console/operators/:operatorId/product-keys': under('operator', 'POST', '/product-keys', {
        name: 'taken',
      }),
      'GET /api/console/operators/:operatorId/product-keys': under('operator', 'GET', '/product-keys'),
      'POST /api/console/operators/:operatorId/mobile-build': under('operator', 'POST', '/mobile-build', {
        platform: 'android',
      }),
      'GET /api/console/operators/:operatorId/mobile-builds': under('operator', 'GET', '/mobile-builds'),
    },
    // The build callback takes no credential: A's product key goes with it all the same.
    productKey: {
      'GET /api/public/auctions/:auctionId': (r) => ({
        method: 'GET',
        url: `/api/public/auctions/${r.auctionId}`,
      }),
      'POST /api/public/mobile-builds/:buildId/callback': (r) => ({
        method: 'POST',
        url: `/api/public/mobile-builds/${r.buildId}/callback`,
        payload: { status: 'succeeded' },
      }),
    },
  },
  checks: {
    "A's public listing and brand never show B's": async ({ t, asA, marker }, r) => {
      for (const url of ['/api/public/auctions', '/api/public/brand']) {
        const res = await call(t.app, { method: 'GET', url, headers: asA.productKey() });
        assert.equal(res.statusCode, 200, res.body);
        assert.doesNotMatch(res.body, new RegExp(marker), url);
        assert.ok(!res.body.includes(r.auctionId), url);
      }
    },
  },
});
