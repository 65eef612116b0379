import assert from 'node:assert/strict';
import { bearer, connectSession } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { defineIsolation } from '../../../../test/support/isolation-suite.ts';
import { oneRoom } from '../../../../test/support/security-suite.ts';

const intruder = { type: 'end_user', id: 'a:intruder', identityProvider: 'test' };

/** Tenant B's live auction (its title the marker). */
export const isolation = defineIsolation({
  module: 'auctions',
  async setup({ t, b, inB, marker }) {
    const { roomId } = await oneRoom(t, b);
    const auction = await inB('/v1/auctions', {
      roomId,
      title: marker,
      currency: 'EUR',
      startingPrice: 100,
      buyNowPrice: 10_000,
      durationSeconds: 600,
      published: true,
    });
    const auctionId = auction.json<{ id: string }>().id;
    await inB(`/v1/auctions/${auctionId}/start`, undefined, { status: 200 });
    return { roomId, auctionId };
  },
  cases: {
    apiKey: {
      'GET /v1/auctions/:auctionId': (r) => ({ method: 'GET', url: `/v1/auctions/${r.auctionId}` }),
      'PATCH /v1/auctions/:auctionId': (r) => ({
        method: 'PATCH',
        url: `/v1/auctions/${r.auctionId}`,
        payload: { title: 'x' },
      }),
      'DELETE /v1/auctions/:auctionId': (r) => ({ method: 'DELETE', url: `/v1/auctions/${r.auctionId}` }),
      'POST /v1/auctions/:auctionId/schedule': (r) => ({
        method: 'POST',
        url: `/v1/auctions/${r.auctionId}/schedule`,
        payload: { startsAt: new Date(Date.now() + 86_400_000).toISOString() },
      }),
      'POST /v1/auctions/:auctionId/start': (r) => ({
        method: 'POST',
        url: `/v1/auctions/${r.auctionId}/start`,
      }),
      'POST /v1/auctions/:auctionId/cancel': (r) => ({
        method: 'POST',
        url: `/v1/auctions/${r.auctionId}/cancel`,
        payload: {},
      }),
      'POST /v1/auctions/:auctionId/bids': (r) => ({
        method: 'POST',
        url: `/v1/auctions/${r.auctionId}/bids`,
        payload: { amount: 5000, actor: intruder },
      }),
      'GET /v1/auctions/:auctionId/bids': (r) => ({ method: 'GET', url: `/v1/auctions/${r.auctionId}/bids` }),
      'POST /v1/auctions/:auctionId/buy-now': (r) => ({
        method: 'POST',
        url: `/v1/auctions/${r.auctionId}/buy-now`,
        payload: { actor: intruder },
      }),
    },
  },
  checks: {
    "B's auction is untouched: live, no bid": async ({ t, b }, r) => {
      const auction = await call(t.app, {
        method: 'GET',
        url: `/v1/auctions/${r.auctionId}`,
        headers: bearer(b.apiKey),
      });
      assert.equal(auction.json<{ status: string }>().status, 'live');
      assert.equal(auction.json<{ bidCount: number }>().bidCount, 0);
    },
    "A's auction lists never show B's": async ({ t, a, asA, marker }, r) => {
      const session = await connectSession(t, a.apiKey, { modules: ['rooms', 'auctions'] });
      for (const headers of [asA.apiKey(), bearer(session.token)]) {
        for (const url of ['/v1/auctions?limit=100', `/v1/auctions?roomId=${r.roomId}`]) {
          const res = await call(t.app, { method: 'GET', url, headers });
          assert.equal(res.statusCode, 200, url);
          assert.doesNotMatch(res.body, new RegExp(marker), url);
        }
      }
    },
  },
});
