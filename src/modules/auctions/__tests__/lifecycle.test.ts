import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer, createApiKey } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { type AuctionBody, auctionSuite, bidder, type ErrorBody, keyOf, post } from './support.ts';

describe('auctions module: lifecycle over REST', () => {
  const s = auctionSuite();

  test('every illegal transition answers 409 conflict naming the status', async () => {
    const ops = {
      schedule: (id: string) =>
        s.post(`/v1/auctions/${id}/schedule`, {
          startsAt: new Date(Date.now() + 3_600_000).toISOString(),
        }),
      start: (id: string) => s.post(`/v1/auctions/${id}/start`),
      cancel: (id: string) => s.post(`/v1/auctions/${id}/cancel`, {}),
      edit: (id: string) =>
        call(s.t.app, {
          method: 'PATCH',
          url: `/v1/auctions/${id}`,
          headers: keyOf(s.key),
          payload: { title: 'y' },
        }),
      delete: (id: string) =>
        call(s.t.app, { method: 'DELETE', url: `/v1/auctions/${id}`, headers: keyOf(s.key) }),
    };
    const allowed: Record<string, (keyof typeof ops)[]> = {
      draft: ['schedule', 'start', 'cancel', 'edit', 'delete'],
      scheduled: ['start', 'cancel', 'edit'],
      live: ['cancel'],
      ended: [],
      cancelled: [],
    };
    const inStatus = async (status: string): Promise<string> => {
      const a = await s.auction();
      if (status === 'scheduled') assert.equal((await ops.schedule(a.id)).statusCode, 200);
      if (status === 'live' || status === 'ended') assert.equal((await ops.start(a.id)).statusCode, 200);
      if (status === 'ended') {
        await s.bid(a.id, 'buyer', { amount: 1000 });
        // Ended through buy-now-less path: cancel is not an end, so use a buy-now auction instead.
      }
      if (status === 'cancelled') assert.equal((await ops.cancel(a.id)).statusCode, 200);
      return a.id;
    };
    const endedId = async () => {
      const a = await s.live({ buyNowPrice: 5000 });
      const res = await s.post(`/v1/auctions/${a.id}/buy-now`, { actor: bidder('buyer') });
      assert.equal(res.statusCode, 201, res.body);
      return a.id;
    };
    for (const [status, ok] of Object.entries(allowed)) {
      for (const op of Object.keys(ops) as (keyof typeof ops)[]) {
        const id = status === 'ended' ? await endedId() : await inStatus(status);
        const res = await ops[op](id);
        if (ok.includes(op)) {
          assert.ok(res.statusCode < 300, `${op} on ${status}: ${res.statusCode} ${res.body}`);
        } else {
          assert.equal(res.statusCode, 409, `${op} on ${status}: ${res.body}`);
          const body = res.json<ErrorBody>();
          assert.equal(body.error, 'conflict');
          assert.match(body.message, new RegExp(`is ${status}`));
          assert.equal(body.details?.[0]?.code, 'invalid_transition');
        }
      }
    }
  });

  test('schedule needs a start time in the future', async () => {
    const a = await s.auction();
    const none = await s.post(`/v1/auctions/${a.id}/schedule`, {});
    assert.equal(none.statusCode, 400);
    const past = await s.post(`/v1/auctions/${a.id}/schedule`, {
      startsAt: '2020-01-01T00:00:00.000Z',
    });
    assert.equal(past.json<ErrorBody>().details?.[0]?.code, 'in_the_past');
  });

  test('a room holds at most maxLivePerRoom scheduled or live auctions', async () => {
    const config = await call(s.t.app, {
      method: 'PUT',
      url: `/api/console/tenants/${s.tenant.tenantId}/modules/auctions`,
      headers: bearer(s.tenant.ownerToken),
      payload: { enabled: true, config: { maxLivePerRoom: 1 } },
    });
    assert.equal(config.statusCode, 200, config.body);
    try {
      const roomId = await s.room();
      await s.live({ roomId });
      const second = await s.auction({ roomId });
      const res = await s.post(`/v1/auctions/${second.id}/start`);
      assert.equal(res.statusCode, 409);
      assert.match(res.json<ErrorBody>().message, /maximum/);
    } finally {
      await call(s.t.app, {
        method: 'PUT',
        url: `/api/console/tenants/${s.tenant.tenantId}/modules/auctions`,
        headers: bearer(s.tenant.ownerToken),
        payload: { enabled: true, config: {} },
      });
    }
  });

  test('a live auction with bids is cancelled only with auctions:admin; its bids are kept', async () => {
    const a = await s.live();
    await s.bid(a.id, 'ann', { amount: 1000 });
    const writer = await createApiKey(s.t, s.tenant.tenantId, ['auctions:write', 'auctions:read']);
    const refused = await post(s.t, writer, `/v1/auctions/${a.id}/cancel`, {});
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json<ErrorBody>().error, 'insufficient_scope');
    const noBids = await s.live();
    assert.equal((await post(s.t, writer, `/v1/auctions/${noBids.id}/cancel`, {})).statusCode, 200);
    const res = await s.post(`/v1/auctions/${a.id}/cancel`, { reason: 'consignor withdrew' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json<AuctionBody>().status, 'cancelled');
    const bids = await s.get(`/v1/auctions/${a.id}/bids`);
    assert.equal(bids.json<{ data: unknown[] }>().data.length, 1);
    const events = await s.events('auction.cancelled', a.id);
    assert.equal(events[0]?.data.reason, 'consignor withdrew');
  });

  test('edit in draft and scheduled only; metadata merges', async () => {
    const a = await s.auction({ metadata: { lot: 1 } });
    const res = await call(s.t.app, {
      method: 'PATCH',
      url: `/v1/auctions/${a.id}`,
      headers: keyOf(s.key),
      payload: { title: 'Renamed', metadata: { era: '70s' }, reservePrice: 4000 },
    });
    assert.equal(res.statusCode, 200, res.body);
    const edited = res.json<AuctionBody>();
    assert.equal(edited.title, 'Renamed');
    assert.deepEqual(edited.metadata, { lot: 1, era: '70s' });
    assert.equal(edited.reservePrice, 4000);
    assert.equal(edited.seq, 2);
  });
});
