import assert from 'node:assert/strict';
import { bearer } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { defineSecurity } from '../../../../test/support/security-suite.ts';

const bidder = { type: 'end_user', id: 'test:bidder', identityProvider: 'test' };
const own = { sessions: false, roomScoped: false, namesRecords: true } as const;
const bidding = { sessions: true, roomScoped: false, namesRecords: true } as const;

/** The module's whole security coverage (run by security.test.ts, checked complete by test/platform). */
export const security = defineSecurity({
  module: 'auctions',
  async setup(t, tenant) {
    const headers = bearer(tenant.apiKey);
    const room = await call(t.app, { method: 'POST', url: '/v1/rooms', headers, payload: {} });
    const roomId = room.json<{ id: string }>().id;
    const create = async (extra: Record<string, unknown> = {}) => {
      const res = await call(t.app, {
        method: 'POST',
        url: '/v1/auctions',
        headers,
        payload: {
          roomId,
          title: 'Lot',
          currency: 'EUR',
          startingPrice: 100,
          durationSeconds: 600,
          ...extra,
        },
      });
      assert.equal(res.statusCode, 201, res.body);
      return res.json<{ id: string }>().id;
    };
    // Live, with a buy-now price: the routes that need a draft answer the control with 409.
    const auctionId = await create({ buyNowPrice: 10_000 });
    const started = await call(t.app, { method: 'POST', url: `/v1/auctions/${auctionId}/start`, headers });
    assert.equal(started.statusCode, 200, started.body);
    return { roomId, auctionId };
  },
  routes: [
    {
      method: 'POST',
      url: () => '/v1/auctions',
      payload: (r) => ({
        roomId: r.roomId,
        title: 'x',
        currency: 'EUR',
        startingPrice: 1,
        durationSeconds: 60,
      }),
      scope: 'auctions:write',
      sessions: false,
      roomScoped: false,
      namesRecords: false,
    },
    {
      method: 'GET',
      url: () => '/v1/auctions',
      scope: 'auctions:read',
      sessions: true,
      roomScoped: false,
      namesRecords: false,
    },
    { method: 'GET', url: (r) => `/v1/auctions/${r.auctionId}`, scope: 'auctions:read', ...bidding },
    {
      method: 'PATCH',
      url: (r) => `/v1/auctions/${r.auctionId}`,
      payload: () => ({ title: 'renamed' }),
      scope: 'auctions:write',
      ...own,
      control: 409,
    },
    {
      method: 'DELETE',
      url: (r) => `/v1/auctions/${r.auctionId}`,
      scope: 'auctions:write',
      ...own,
      control: 409,
    },
    {
      method: 'POST',
      url: (r) => `/v1/auctions/${r.auctionId}/schedule`,
      payload: () => ({ startsAt: new Date(Date.now() + 86_400_000).toISOString() }),
      scope: 'auctions:write',
      ...own,
      control: 409,
    },
    {
      method: 'POST',
      url: (r) => `/v1/auctions/${r.auctionId}/start`,
      scope: 'auctions:write',
      ...own,
      control: 409,
    },
    {
      method: 'POST',
      url: (r) => `/v1/auctions/${r.auctionId}/cancel`,
      payload: () => ({}),
      scope: 'auctions:write',
      ...own,
    },
    {
      method: 'POST',
      url: (r) => `/v1/auctions/${r.auctionId}/bids`,
      payload: () => ({ amount: 100, actor: bidder }),
      scope: 'auctions:bid',
      ...bidding,
    },
    { method: 'GET', url: (r) => `/v1/auctions/${r.auctionId}/bids`, scope: 'auctions:read', ...bidding },
    {
      method: 'POST',
      url: (r) => `/v1/auctions/${r.auctionId}/buy-now`,
      payload: () => ({ actor: bidder }),
      scope: 'auctions:bid',
      ...bidding,
    },
  ],
});
