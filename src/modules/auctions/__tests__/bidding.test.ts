import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer, connectSession } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { MODULES } from '../../../app.ts';
import { ManualClock } from '../../../core/clock.ts';
import { activeRetention, retentionRules } from '../../../core/retention/rules.ts';
import { RetentionWorker } from '../../../core/retention/worker.ts';
import { type Actor, type AuctionBody, auctionSuite, bidder, type ErrorBody } from './support.ts';

describe('auctions module: bidding over REST', () => {
  const s = auctionSuite();

  test('bids: accepted ones move the price and the leader; refusals carry a code and the price', async () => {
    const a = await s.live();
    const first = await s.bid(a.id, 'ann', { maxAmount: 5000 });
    assert.equal(first.statusCode, 201, first.body);
    const placed = first.json<{ bid: Record<string, unknown>; auction: AuctionBody }>();
    assert.equal(placed.bid.maxAmount, 5000, 'the bidder sees its own maximum');
    assert.equal(placed.auction.currentPrice, 1000);
    assert.deepEqual(placed.auction.leadingBid?.bidder, bidder('ann'));
    assert.equal(placed.auction.leadingBid?.amount, 1000);

    const second = await s.bid(a.id, 'bob', { amount: 3000 });
    assert.equal(second.statusCode, 201);
    const after = second.json<{ auction: AuctionBody }>().auction;
    assert.equal(after.currentPrice, 3100);
    assert.deepEqual(after.leadingBid?.bidder, bidder('ann'));
    assert.ok(!JSON.stringify(after).includes('5000'), 'never the leader’s maximum');

    const low = await s.bid(a.id, 'cy', { amount: 3150 });
    assert.equal(low.statusCode, 409);
    const body = low.json<ErrorBody>();
    assert.equal(body.error, 'conflict');
    assert.equal(body.details?.[0]?.code, 'bid_too_low');
    assert.equal(body.details?.[1]?.code, 'current_price');
    assert.equal(body.details?.[1]?.message, '3100');
    assert.equal(body.details?.[2]?.message, '3200');

    const self = await s.bid(a.id, 'ann', { amount: 3200 });
    assert.equal(self.json<ErrorBody>().details?.[0]?.code, 'self_outbid');
    const currency = await s.bid(a.id, 'cy', { amount: 4000, currency: 'USD' });
    assert.equal(currency.statusCode, 400);
    assert.equal(currency.json<ErrorBody>().details?.[0]?.code, 'currency_mismatch');
    const draft = await s.auction();
    const notLive = await s.bid(draft.id, 'cy', { amount: 4000 });
    assert.equal(notLive.statusCode, 409);
    assert.equal(notLive.json<ErrorBody>().details?.[0]?.code, 'auction_not_live');

    const rejections = await s.t.db.query<{ code: string }>(
      'select code from auction_rejections where auction_id = $1 order by id',
      [a.id],
    );
    assert.deepEqual(
      rejections.rows.map((r) => r.code),
      ['bid_too_low', 'self_outbid', 'currency_mismatch'],
    );

    const list = await s.get(`/v1/auctions/${a.id}/bids?limit=1`);
    const page = list.json<{ data: { seq: number; amount: number }[]; nextCursor: string | null }>();
    assert.equal(page.data.length, 1);
    assert.equal(page.data[0]?.amount, 3000, 'newest first: the outbid bid at its amount');
    assert.ok(!JSON.stringify(page).includes('maxAmount'));
    assert.ok(page.nextCursor !== null);
    const next = await s.get(`/v1/auctions/${a.id}/bids?cursor=${page.nextCursor}`);
    const older = next.json<{ data: { amount: number }[]; nextCursor: string | null }>();
    assert.deepEqual(
      older.data.map((b) => b.amount),
      [1000],
      'the first bid, at the price it made when it led',
    );
    assert.equal(older.nextCursor, null);
  });

  test('clientBidId: a retry answers with the first result, accepted or refused', async () => {
    const a = await s.live();
    const one = await s.bid(a.id, 'ann', { amount: 1000, clientBidId: 'c-1' });
    const again = await s.bid(a.id, 'ann', { amount: 1000, clientBidId: 'c-1' });
    assert.equal(again.statusCode, 201);
    assert.equal(again.json<{ bid: { id: string } }>().bid.id, one.json<{ bid: { id: string } }>().bid.id);
    const low = await s.bid(a.id, 'bob', { amount: 500, clientBidId: 'c-2' });
    assert.equal(low.statusCode, 409);
    const lowAgain = await s.bid(a.id, 'bob', { amount: 500, clientBidId: 'c-2' });
    assert.equal(lowAgain.statusCode, 409);
    assert.equal(lowAgain.json<ErrorBody>().details?.[0]?.code, 'bid_too_low');
    const got = await s.get(`/v1/auctions/${a.id}`);
    assert.equal(got.json<AuctionBody>().bidCount, 1);
  });

  test('a refused bid’s clientBidId goes with its refusal past retention; an accepted bid’s stays', async () => {
    const a = await s.live();
    const won = await s.bid(a.id, 'ann', { amount: 1000, clientBidId: 'keep-1' });
    assert.equal(won.statusCode, 201, won.body);
    const low = await s.bid(a.id, 'bob', { amount: 500, clientBidId: 'gone-1' });
    assert.equal(low.statusCode, 409);
    const keys = async () =>
      (
        await s.t.db.query<{ client_bid_id: string }>(
          'select client_bid_id from auction_client_bids where auction_id = $1 order by client_bid_id',
          [a.id],
        )
      ).rows.map((row) => row.client_bid_id);
    assert.deepEqual(await keys(), ['gone-1', 'keep-1']);
    await s.t.db.query(
      `update auction_rejections set created_at = created_at - interval '31 days' where auction_id = $1`,
      [a.id],
    );
    const retention = new RetentionWorker({
      db: s.t.db,
      clock: new ManualClock(Date.now()),
      rules: activeRetention(retentionRules(MODULES), { ages: {} }),
      intervalMs: 3_600_000,
      tenantIds: [s.tenant.tenantId],
    });
    const pass = await retention.pass();
    assert.equal(pass.ran && pass.deleted?.auction_rejections, 1);
    assert.deepEqual(await keys(), ['keep-1'], 'the refused bid’s key went with its refusal');

    // The refused bid's retry is decided again (and refused again, recorded anew); the accepted one's
    // retry still answers with its first result, on the path that knows the auction and under the lock.
    const lowAgain = await s.bid(a.id, 'bob', { amount: 500, clientBidId: 'gone-1' });
    assert.equal(lowAgain.json<ErrorBody>().details?.[0]?.code, 'bid_too_low');
    const refusals = await s.t.db.query('select 1 from auction_rejections where auction_id = $1', [a.id]);
    assert.equal(refusals.rows.length, 1);
    assert.deepEqual(await keys(), ['gone-1', 'keep-1']);
    const wonAgain = await s.bid(a.id, 'ann', { amount: 1000, clientBidId: 'keep-1' });
    assert.equal(wonAgain.statusCode, 201);
    assert.equal(wonAgain.json<{ bid: { id: string } }>().bid.id, won.json<{ bid: { id: string } }>().bid.id);
  });

  test('a session token bids as its own actor; an API key must name one', async () => {
    const a = await s.live();
    const session = await connectSession(s.t, s.key, { modules: ['auctions'], actorId: 'test:sess' });
    const res = await call(s.t.app, {
      method: 'POST',
      url: `/v1/auctions/${a.id}/bids`,
      headers: bearer(session.token),
      payload: { amount: 1000 },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json<{ bid: { bidder: Actor } }>().bid.bidder.id, 'test:sess');
    const noActor = await s.post(`/v1/auctions/${a.id}/bids`, { amount: 2000 });
    assert.equal(noActor.statusCode, 400);
    assert.equal(noActor.json<ErrorBody>().details?.[0]?.field, '/body/actor');
    const other = await call(s.t.app, {
      method: 'POST',
      url: `/v1/auctions/${a.id}/bids`,
      headers: bearer(session.token),
      payload: { amount: 2000, actor: bidder('someone-else') },
    });
    assert.equal(other.statusCode, 400);
  });

  test('Idempotency-Key on bids: a retry replays the first answer; two end users with one key stay apart', async () => {
    const a = await s.live();
    const bidAs = (token: string, amount: number) =>
      call(s.t.app, {
        method: 'POST',
        url: `/v1/auctions/${a.id}/bids`,
        headers: { ...bearer(token), 'idempotency-key': 'tap-1' },
        payload: { amount },
      });
    const ann = await connectSession(s.t, s.key, { modules: ['auctions'], actorId: 'test:idem-ann' });
    const bob = await connectSession(s.t, s.key, { modules: ['auctions'], actorId: 'test:idem-bob' });
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
    const got = await s.get(`/v1/auctions/${a.id}`);
    assert.equal(got.json<AuctionBody>().bidCount, 2);
  });

  test('buy-now ends the auction at once; events say sold at the buy-now price', async () => {
    const a = await s.live({ buyNowPrice: 7000, reservePrice: 3000 });
    assert.equal(a.buyNowAvailable, true);
    await s.bid(a.id, 'ann', { amount: 1000 });
    const res = await s.post(`/v1/auctions/${a.id}/buy-now`, { actor: bidder('bob') });
    assert.equal(res.statusCode, 201, res.body);
    const ended = res.json<{ auction: AuctionBody }>().auction;
    assert.equal(ended.status, 'ended');
    assert.equal(ended.outcome, 'bought_now');
    assert.equal(ended.finalPrice, 7000);
    assert.deepEqual(ended.winner, bidder('bob'));
    assert.equal(ended.endedAt, ended.updatedAt, 'the answer says when it ended');
    const events = await s.events('auction.ended', a.id);
    assert.equal(events.length, 1);
    assert.equal(events[0]?.data.outcome, 'bought_now');
    assert.equal(events[0]?.data.finalPrice, 7000);
    const late = await s.post(`/v1/auctions/${a.id}/buy-now`, { actor: bidder('cy') });
    assert.equal(late.json<ErrorBody>().details?.[0]?.code, 'auction_not_live');
  });

  test('buy-now is withdrawn once a bid meets the reserve', async () => {
    const a = await s.live({ buyNowPrice: 7000, reservePrice: 3000 });
    await s.bid(a.id, 'ann', { maxAmount: 3500 });
    const res = await s.post(`/v1/auctions/${a.id}/buy-now`, { actor: bidder('bob') });
    assert.equal(res.statusCode, 409);
    assert.equal(res.json<ErrorBody>().details?.[0]?.code, 'buy_now_unavailable');
  });
});
