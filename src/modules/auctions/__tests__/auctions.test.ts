import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  bearer,
  connectSession,
  createApiKey,
  createTestTenant,
  type TestTenant,
} from '../../../../test/factories.ts';
import { buildTestApp, call, type TestApp } from '../../../../test/helper.ts';
import { MODULES } from '../../../app.ts';
import { ManualClock } from '../../../core/clock.ts';
import { activeRetention, retentionRules } from '../../../core/retention/rules.ts';
import { RetentionWorker } from '../../../core/retention/worker.ts';
import {
  type Actor,
  type AuctionBody,
  bidder,
  type ErrorBody,
  eventsOf,
  keyOf,
  liveAuction,
  makeAuction,
  makeRoom,
  placeBid,
  post,
} from './support.ts';

describe('auctions module: REST', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let key: string;

  before(async () => {
    t = await buildTestApp();
    tenant = await createTestTenant(t);
    key = tenant.apiKey;
  });
  after(() => t.close());

  const get = (url: string, apiKey = key) => call(t.app, { method: 'GET', url, headers: keyOf(apiKey) });

  test('create: a draft in the room, with the config’s defaults and the read model', async () => {
    const roomId = await makeRoom(t, key);
    const res = await post(t, key, '/v1/auctions', {
      roomId,
      title: 'Lot 1',
      currency: 'EUR',
      startingPrice: 500,
      reservePrice: 2000,
      buyNowPrice: 9000,
      durationSeconds: 600,
      published: true,
      metadata: { lot: 1 },
    });
    assert.equal(res.statusCode, 201, res.body);
    const auction = res.json<AuctionBody>();
    assert.match(auction.id, /^auc_[0-9a-z]{26}$/);
    assert.equal(auction.status, 'draft');
    assert.equal(auction.roomId, roomId);
    assert.equal(auction.currentPrice, null);
    assert.equal(auction.minimumBid, 500);
    assert.equal(auction.leadingBid, null);
    assert.equal(auction.seq, 1);
    assert.equal((auction.increments as unknown[]).length, 10, 'the default table');
    assert.deepEqual(auction.softClose, {
      windowSeconds: 30,
      mode: 'extend',
      extendSeconds: 30,
      maxExtensions: 20,
    });
    const got = await get(`/v1/auctions/${auction.id}`);
    assert.deepEqual(got.json(), auction);
    const created = await eventsOf(t, key, 'auction.created', auction.id);
    assert.equal(created.length, 1);
  });

  test('create: the room must exist in the tenant', async () => {
    const res = await post(t, key, '/v1/auctions', {
      roomId: 'no-such-room',
      title: 'x',
      currency: 'EUR',
      startingPrice: 1,
      durationSeconds: 60,
    });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json<ErrorBody>().error, 'not_found');
  });

  test('money: integers up to 10^12 minor units with an ISO 4217 currency', async () => {
    const roomId = await makeRoom(t, key);
    const base = { roomId, title: 'x', currency: 'EUR', startingPrice: 100, durationSeconds: 60 };
    const bad: [Record<string, unknown>, string][] = [
      [{ startingPrice: 1_000_000_000_001 }, '/body/startingPrice'],
      [{ startingPrice: 10.5 }, '/body/startingPrice'],
      [{ startingPrice: -1 }, '/body/startingPrice'],
      [{ reservePrice: 2e12 }, '/body/reservePrice'],
      [{ currency: 'eur' }, '/body/currency'],
      [{ currency: 'XYZ' }, '/body/currency'],
      // The one list payments uses (core/currencies.ts): a withdrawn code, a test code and a metal are no
      // currency an auction can settle in, though Intl still names them.
      [{ currency: 'BGN' }, '/body/currency'],
      [{ currency: 'XTS' }, '/body/currency'],
      [{ currency: 'XAU' }, '/body/currency'],
      [{ increments: [{ from: 10, increment: 5 }] }, '/body/increments'],
      [{ reservePrice: 50 }, '/body/reservePrice'],
      [{ buyNowPrice: 100 }, '/body/buyNowPrice'],
    ];
    for (const [patch, field] of bad) {
      const res = await post(t, key, '/v1/auctions', { ...base, ...patch });
      assert.equal(res.statusCode, 400, JSON.stringify(patch));
      const body = res.json<ErrorBody>();
      assert.equal(body.error, 'invalid_request');
      assert.equal(body.details?.[0]?.field, field, JSON.stringify(patch));
    }
    assert.equal((await post(t, key, '/v1/auctions', { ...base, startingPrice: 1e12 })).statusCode, 201);
    const live = await liveAuction(t, key);
    for (const amount of [1e12 + 1, 1500.5, '1500']) {
      const res = await placeBid(t, key, live.id, 'a', { amount });
      assert.equal(res.statusCode, 400, String(amount));
      assert.equal(res.json<ErrorBody>().error, 'invalid_request');
    }
  });

  test('every illegal transition answers 409 conflict naming the status', async () => {
    const ops = {
      schedule: (id: string) =>
        post(t, key, `/v1/auctions/${id}/schedule`, {
          startsAt: new Date(Date.now() + 3_600_000).toISOString(),
        }),
      start: (id: string) => post(t, key, `/v1/auctions/${id}/start`),
      cancel: (id: string) => post(t, key, `/v1/auctions/${id}/cancel`, {}),
      edit: (id: string) =>
        call(t.app, {
          method: 'PATCH',
          url: `/v1/auctions/${id}`,
          headers: keyOf(key),
          payload: { title: 'y' },
        }),
      delete: (id: string) =>
        call(t.app, { method: 'DELETE', url: `/v1/auctions/${id}`, headers: keyOf(key) }),
    };
    const allowed: Record<string, (keyof typeof ops)[]> = {
      draft: ['schedule', 'start', 'cancel', 'edit', 'delete'],
      scheduled: ['start', 'cancel', 'edit'],
      live: ['cancel'],
      ended: [],
      cancelled: [],
    };
    const inStatus = async (status: string): Promise<string> => {
      const a = await makeAuction(t, key);
      if (status === 'scheduled') assert.equal((await ops.schedule(a.id)).statusCode, 200);
      if (status === 'live' || status === 'ended') assert.equal((await ops.start(a.id)).statusCode, 200);
      if (status === 'ended') {
        await placeBid(t, key, a.id, 'buyer', { amount: 1000 });
        // Ended through buy-now-less path: cancel is not an end, so use a buy-now auction instead.
      }
      if (status === 'cancelled') assert.equal((await ops.cancel(a.id)).statusCode, 200);
      return a.id;
    };
    const endedId = async () => {
      const a = await liveAuction(t, key, { buyNowPrice: 5000 });
      const res = await post(t, key, `/v1/auctions/${a.id}/buy-now`, { actor: bidder('buyer') });
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
    const a = await makeAuction(t, key);
    const none = await post(t, key, `/v1/auctions/${a.id}/schedule`, {});
    assert.equal(none.statusCode, 400);
    const past = await post(t, key, `/v1/auctions/${a.id}/schedule`, {
      startsAt: '2020-01-01T00:00:00.000Z',
    });
    assert.equal(past.json<ErrorBody>().details?.[0]?.code, 'in_the_past');
  });

  test('a room holds at most maxLivePerRoom scheduled or live auctions', async () => {
    const config = await call(t.app, {
      method: 'PUT',
      url: `/api/console/tenants/${tenant.tenantId}/modules/auctions`,
      headers: bearer(tenant.ownerToken),
      payload: { enabled: true, config: { maxLivePerRoom: 1 } },
    });
    assert.equal(config.statusCode, 200, config.body);
    try {
      const roomId = await makeRoom(t, key);
      await liveAuction(t, key, { roomId });
      const second = await makeAuction(t, key, { roomId });
      const res = await post(t, key, `/v1/auctions/${second.id}/start`);
      assert.equal(res.statusCode, 409);
      assert.match(res.json<ErrorBody>().message, /maximum/);
    } finally {
      await call(t.app, {
        method: 'PUT',
        url: `/api/console/tenants/${tenant.tenantId}/modules/auctions`,
        headers: bearer(tenant.ownerToken),
        payload: { enabled: true, config: {} },
      });
    }
  });

  test('bids: accepted ones move the price and the leader; refusals carry a code and the price', async () => {
    const a = await liveAuction(t, key);
    const first = await placeBid(t, key, a.id, 'ann', { maxAmount: 5000 });
    assert.equal(first.statusCode, 201, first.body);
    const placed = first.json<{ bid: Record<string, unknown>; auction: AuctionBody }>();
    assert.equal(placed.bid.maxAmount, 5000, 'the bidder sees its own maximum');
    assert.equal(placed.auction.currentPrice, 1000);
    assert.deepEqual(placed.auction.leadingBid?.bidder, bidder('ann'));
    assert.equal(placed.auction.leadingBid?.amount, 1000);

    const second = await placeBid(t, key, a.id, 'bob', { amount: 3000 });
    assert.equal(second.statusCode, 201);
    const after = second.json<{ auction: AuctionBody }>().auction;
    assert.equal(after.currentPrice, 3100);
    assert.deepEqual(after.leadingBid?.bidder, bidder('ann'));
    assert.ok(!JSON.stringify(after).includes('5000'), 'never the leader’s maximum');

    const low = await placeBid(t, key, a.id, 'cy', { amount: 3150 });
    assert.equal(low.statusCode, 409);
    const body = low.json<ErrorBody>();
    assert.equal(body.error, 'conflict');
    assert.equal(body.details?.[0]?.code, 'bid_too_low');
    assert.equal(body.details?.[1]?.code, 'current_price');
    assert.equal(body.details?.[1]?.message, '3100');
    assert.equal(body.details?.[2]?.message, '3200');

    const self = await placeBid(t, key, a.id, 'ann', { amount: 3200 });
    assert.equal(self.json<ErrorBody>().details?.[0]?.code, 'self_outbid');
    const currency = await placeBid(t, key, a.id, 'cy', { amount: 4000, currency: 'USD' });
    assert.equal(currency.statusCode, 400);
    assert.equal(currency.json<ErrorBody>().details?.[0]?.code, 'currency_mismatch');
    const draft = await makeAuction(t, key);
    const notLive = await placeBid(t, key, draft.id, 'cy', { amount: 4000 });
    assert.equal(notLive.statusCode, 409);
    assert.equal(notLive.json<ErrorBody>().details?.[0]?.code, 'auction_not_live');

    const rejections = await t.db.query<{ code: string }>(
      'select code from auction_rejections where auction_id = $1 order by id',
      [a.id],
    );
    assert.deepEqual(
      rejections.rows.map((r) => r.code),
      ['bid_too_low', 'self_outbid', 'currency_mismatch'],
    );

    const list = await get(`/v1/auctions/${a.id}/bids?limit=1`);
    const page = list.json<{ data: { seq: number; amount: number }[]; nextCursor: string | null }>();
    assert.equal(page.data.length, 1);
    assert.equal(page.data[0]?.amount, 3000, 'newest first: the outbid bid at its amount');
    assert.ok(!JSON.stringify(page).includes('maxAmount'));
    assert.ok(page.nextCursor !== null);
    const next = await get(`/v1/auctions/${a.id}/bids?cursor=${page.nextCursor}`);
    const older = next.json<{ data: { amount: number }[]; nextCursor: string | null }>();
    assert.deepEqual(
      older.data.map((b) => b.amount),
      [1000],
      'the first bid, at the price it made when it led',
    );
    assert.equal(older.nextCursor, null);
  });

  test('clientBidId: a retry answers with the first result, accepted or refused', async () => {
    const a = await liveAuction(t, key);
    const one = await placeBid(t, key, a.id, 'ann', { amount: 1000, clientBidId: 'c-1' });
    const again = await placeBid(t, key, a.id, 'ann', { amount: 1000, clientBidId: 'c-1' });
    assert.equal(again.statusCode, 201);
    assert.equal(again.json<{ bid: { id: string } }>().bid.id, one.json<{ bid: { id: string } }>().bid.id);
    const low = await placeBid(t, key, a.id, 'bob', { amount: 500, clientBidId: 'c-2' });
    assert.equal(low.statusCode, 409);
    const lowAgain = await placeBid(t, key, a.id, 'bob', { amount: 500, clientBidId: 'c-2' });
    assert.equal(lowAgain.statusCode, 409);
    assert.equal(lowAgain.json<ErrorBody>().details?.[0]?.code, 'bid_too_low');
    const got = await get(`/v1/auctions/${a.id}`);
    assert.equal(got.json<AuctionBody>().bidCount, 1);
  });

  test('a refused bid’s clientBidId goes with its refusal past retention; an accepted bid’s stays', async () => {
    const a = await liveAuction(t, key);
    const won = await placeBid(t, key, a.id, 'ann', { amount: 1000, clientBidId: 'keep-1' });
    assert.equal(won.statusCode, 201, won.body);
    const low = await placeBid(t, key, a.id, 'bob', { amount: 500, clientBidId: 'gone-1' });
    assert.equal(low.statusCode, 409);
    const keys = async () =>
      (
        await t.db.query<{ client_bid_id: string }>(
          'select client_bid_id from auction_client_bids where auction_id = $1 order by client_bid_id',
          [a.id],
        )
      ).rows.map((row) => row.client_bid_id);
    assert.deepEqual(await keys(), ['gone-1', 'keep-1']);
    await t.db.query(
      `update auction_rejections set created_at = created_at - interval '31 days' where auction_id = $1`,
      [a.id],
    );
    const retention = new RetentionWorker({
      db: t.db,
      clock: new ManualClock(Date.now()),
      rules: activeRetention(retentionRules(MODULES), { ages: {} }),
      intervalMs: 3_600_000,
      tenantIds: [tenant.tenantId],
    });
    const pass = await retention.pass();
    assert.equal(pass.ran && pass.deleted?.auction_rejections, 1);
    assert.deepEqual(await keys(), ['keep-1'], 'the refused bid’s key went with its refusal');

    // The refused bid's retry is decided again (and refused again, recorded anew); the accepted one's
    // retry still answers with its first result, on the path that knows the auction and under the lock.
    const lowAgain = await placeBid(t, key, a.id, 'bob', { amount: 500, clientBidId: 'gone-1' });
    assert.equal(lowAgain.json<ErrorBody>().details?.[0]?.code, 'bid_too_low');
    const refusals = await t.db.query('select 1 from auction_rejections where auction_id = $1', [a.id]);
    assert.equal(refusals.rows.length, 1);
    assert.deepEqual(await keys(), ['gone-1', 'keep-1']);
    const wonAgain = await placeBid(t, key, a.id, 'ann', { amount: 1000, clientBidId: 'keep-1' });
    assert.equal(wonAgain.statusCode, 201);
    assert.equal(wonAgain.json<{ bid: { id: string } }>().bid.id, won.json<{ bid: { id: string } }>().bid.id);
  });

  test('a session token bids as its own actor; an API key must name one', async () => {
    const a = await liveAuction(t, key);
    const session = await connectSession(t, key, { modules: ['auctions'], actorId: 'test:sess' });
    const res = await call(t.app, {
      method: 'POST',
      url: `/v1/auctions/${a.id}/bids`,
      headers: bearer(session.token),
      payload: { amount: 1000 },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json<{ bid: { bidder: Actor } }>().bid.bidder.id, 'test:sess');
    const noActor = await post(t, key, `/v1/auctions/${a.id}/bids`, { amount: 2000 });
    assert.equal(noActor.statusCode, 400);
    assert.equal(noActor.json<ErrorBody>().details?.[0]?.field, '/body/actor');
    const other = await call(t.app, {
      method: 'POST',
      url: `/v1/auctions/${a.id}/bids`,
      headers: bearer(session.token),
      payload: { amount: 2000, actor: bidder('someone-else') },
    });
    assert.equal(other.statusCode, 400);
  });

  test('Idempotency-Key on bids: a retry replays the first answer; two end users with one key stay apart', async () => {
    const a = await liveAuction(t, key);
    const bidAs = (token: string, amount: number) =>
      call(t.app, {
        method: 'POST',
        url: `/v1/auctions/${a.id}/bids`,
        headers: { ...bearer(token), 'idempotency-key': 'tap-1' },
        payload: { amount },
      });
    const ann = await connectSession(t, key, { modules: ['auctions'], actorId: 'test:idem-ann' });
    const bob = await connectSession(t, key, { modules: ['auctions'], actorId: 'test:idem-bob' });
    const first = await bidAs(ann.token, 1000);
    assert.equal(first.statusCode, 201, first.body);
    const retry = await bidAs(ann.token, 1000);
    assert.equal(retry.statusCode, 201);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.equal(retry.body, first.body);
    const otherBody = await bidAs(ann.token, 1500);
    assert.equal(otherBody.statusCode, 409);
    assert.equal(otherBody.json<ErrorBody>().error, 'idempotency_conflict');
    // Bob's 'tap-1' is his own: his bid runs, and Ann's answer is never shown to him.
    const bobs = await bidAs(bob.token, 2000);
    assert.equal(bobs.statusCode, 201, bobs.body);
    assert.equal(bobs.headers['idempotent-replayed'], undefined);
    assert.equal(bobs.json<{ bid: { bidder: Actor } }>().bid.bidder.id, 'test:idem-bob');
    const got = await get(`/v1/auctions/${a.id}`);
    assert.equal(got.json<AuctionBody>().bidCount, 2);
  });

  test('buy-now ends the auction at once; events say sold at the buy-now price', async () => {
    const a = await liveAuction(t, key, { buyNowPrice: 7000, reservePrice: 3000 });
    assert.equal(a.buyNowAvailable, true);
    await placeBid(t, key, a.id, 'ann', { amount: 1000 });
    const res = await post(t, key, `/v1/auctions/${a.id}/buy-now`, { actor: bidder('bob') });
    assert.equal(res.statusCode, 201, res.body);
    const ended = res.json<{ auction: AuctionBody }>().auction;
    assert.equal(ended.status, 'ended');
    assert.equal(ended.outcome, 'bought_now');
    assert.equal(ended.finalPrice, 7000);
    assert.deepEqual(ended.winner, bidder('bob'));
    assert.equal(ended.endedAt, ended.updatedAt, 'the answer says when it ended');
    const events = await eventsOf(t, key, 'auction.ended', a.id);
    assert.equal(events.length, 1);
    assert.equal(events[0]?.data.outcome, 'bought_now');
    assert.equal(events[0]?.data.finalPrice, 7000);
    const late = await post(t, key, `/v1/auctions/${a.id}/buy-now`, { actor: bidder('cy') });
    assert.equal(late.json<ErrorBody>().details?.[0]?.code, 'auction_not_live');
  });

  test('buy-now is withdrawn once a bid meets the reserve', async () => {
    const a = await liveAuction(t, key, { buyNowPrice: 7000, reservePrice: 3000 });
    await placeBid(t, key, a.id, 'ann', { maxAmount: 3500 });
    const res = await post(t, key, `/v1/auctions/${a.id}/buy-now`, { actor: bidder('bob') });
    assert.equal(res.statusCode, 409);
    assert.equal(res.json<ErrorBody>().details?.[0]?.code, 'buy_now_unavailable');
  });

  test('a live auction with bids is cancelled only with auctions:admin; its bids are kept', async () => {
    const a = await liveAuction(t, key);
    await placeBid(t, key, a.id, 'ann', { amount: 1000 });
    const writer = await createApiKey(t, tenant.tenantId, ['auctions:write', 'auctions:read']);
    const refused = await post(t, writer, `/v1/auctions/${a.id}/cancel`, {});
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json<ErrorBody>().error, 'insufficient_scope');
    const noBids = await liveAuction(t, key);
    assert.equal((await post(t, writer, `/v1/auctions/${noBids.id}/cancel`, {})).statusCode, 200);
    const res = await post(t, key, `/v1/auctions/${a.id}/cancel`, { reason: 'consignor withdrew' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json<AuctionBody>().status, 'cancelled');
    const bids = await get(`/v1/auctions/${a.id}/bids`);
    assert.equal(bids.json<{ data: unknown[] }>().data.length, 1);
    const events = await eventsOf(t, key, 'auction.cancelled', a.id);
    assert.equal(events[0]?.data.reason, 'consignor withdrew');
  });

  test('edit in draft and scheduled only; metadata merges', async () => {
    const a = await makeAuction(t, key, { metadata: { lot: 1 } });
    const res = await call(t.app, {
      method: 'PATCH',
      url: `/v1/auctions/${a.id}`,
      headers: keyOf(key),
      payload: { title: 'Renamed', metadata: { era: '70s' }, reservePrice: 4000 },
    });
    assert.equal(res.statusCode, 200, res.body);
    const edited = res.json<AuctionBody>();
    assert.equal(edited.title, 'Renamed');
    assert.deepEqual(edited.metadata, { lot: 1, era: '70s' });
    assert.equal(edited.reservePrice, 4000);
    assert.equal(edited.seq, 2);
  });

  test('list: filter by status, room and published; cursor pagination', async () => {
    const roomId = await makeRoom(t, key);
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await makeAuction(t, key, { roomId, published: i !== 1 })).id);
    await post(t, key, `/v1/auctions/${made[0]}/start`);
    const byRoom = await get(`/v1/auctions?roomId=${roomId}&limit=2`);
    const page = byRoom.json<{ data: AuctionBody[]; nextCursor: string | null }>();
    assert.deepEqual(
      page.data.map((a) => a.id),
      [made[2], made[1]],
    );
    const rest = await get(`/v1/auctions?roomId=${roomId}&limit=2&cursor=${page.nextCursor}`);
    assert.deepEqual(
      rest.json<{ data: AuctionBody[] }>().data.map((a) => a.id),
      [made[0]],
    );
    const live = await get(`/v1/auctions?roomId=${roomId}&status=live`);
    assert.deepEqual(
      live.json<{ data: AuctionBody[] }>().data.map((a) => a.id),
      [made[0]],
    );
    const published = await get(`/v1/auctions?roomId=${roomId}&published=false`);
    assert.deepEqual(
      published.json<{ data: AuctionBody[] }>().data.map((a) => a.id),
      [made[1]],
    );
  });

  test('events: auction.started holds auctionId and roomId; seq numbers every change without gaps', async () => {
    const a = await liveAuction(t, key, {
      softClose: { windowSeconds: 3600, mode: 'extend', extendSeconds: 10, maxExtensions: 1 },
    });
    await placeBid(t, key, a.id, 'ann', { amount: 1000 });
    await placeBid(t, key, a.id, 'bob', { amount: 1100 });
    const started = await eventsOf(t, key, 'auction.started', a.id);
    assert.equal(started.length, 1);
    assert.equal(started[0]?.data.auctionId, a.id);
    assert.equal(started[0]?.data.roomId, a.roomId);
    const all = await eventsOf(t, key, 'auction.*', a.id);
    assert.deepEqual(
      all.map((e) => [e.type, e.data.seq]),
      [
        ['auction.created', 1],
        ['auction.started', 2],
        ['auction.bid.placed', 3],
        ['auction.extended', 4],
        ['auction.bid.placed', 5],
      ],
    );
    const log = await t.db.query<{ seq: string | number }>(
      'select seq from auction_log where auction_id = $1 order by seq',
      [a.id],
    );
    assert.deepEqual(
      log.rows.map((r) => Number(r.seq)),
      [1, 2, 3, 4, 5],
    );
  });

  test('actions: place_bid asks for confirmation always, cancel_auction is destructive', async () => {
    const res = await call(t.app, { method: 'GET', url: '/v1/actions', headers: keyOf(key) });
    assert.equal(res.statusCode, 200, res.body);
    const actions = res.json<{ data: { name: string; access: string; confirmation: string }[] }>().data;
    const byName = new Map(actions.map((a) => [a.name, a]));
    for (const name of [
      'list_auctions',
      'get_auction',
      'create_auction',
      'start_auction',
      'place_bid',
      'cancel_auction',
    ])
      assert.ok(byName.has(name), name);
    assert.equal(byName.get('place_bid')?.confirmation, 'always');
    assert.equal(byName.get('cancel_auction')?.access, 'destructive');
    const roomId = await makeRoom(t, key);
    const created = await call(t.app, {
      method: 'POST',
      url: '/v1/actions/create_auction',
      headers: keyOf(key),
      payload: {
        arguments: { roomId, title: 'By action', currency: 'JPY', startingPrice: 100, durationSeconds: 60 },
      },
    });
    assert.ok(created.statusCode < 300, created.body);
  });
});
