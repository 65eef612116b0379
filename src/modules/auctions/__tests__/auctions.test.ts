import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call } from '../../../../test/helper.ts';
import { type AuctionBody, auctionSuite, type ErrorBody, keyOf } from './support.ts';

describe('auctions module: REST', () => {
  const s = auctionSuite();

  test('create: a draft in the room, with the config’s defaults and the read model', async () => {
    const roomId = await s.room();
    const res = await s.post('/v1/auctions', {
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
    const got = await s.get(`/v1/auctions/${auction.id}`);
    assert.deepEqual(got.json(), auction);
    const created = await s.events('auction.created', auction.id);
    assert.equal(created.length, 1);
  });

  test('create: the room must exist in the tenant', async () => {
    const res = await s.post('/v1/auctions', {
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
    const roomId = await s.room();
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
      const res = await s.post('/v1/auctions', { ...base, ...patch });
      assert.equal(res.statusCode, 400, JSON.stringify(patch));
      const body = res.json<ErrorBody>();
      assert.equal(body.error, 'invalid_request');
      assert.equal(body.details?.[0]?.field, field, JSON.stringify(patch));
    }
    assert.equal((await s.post('/v1/auctions', { ...base, startingPrice: 1e12 })).statusCode, 201);
    const live = await s.live();
    for (const amount of [1e12 + 1, 1500.5, '1500']) {
      const res = await s.bid(live.id, 'a', { amount });
      assert.equal(res.statusCode, 400, String(amount));
      assert.equal(res.json<ErrorBody>().error, 'invalid_request');
    }
  });

  test('list: filter by status, room and published; cursor pagination', async () => {
    const roomId = await s.room();
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await s.auction({ roomId, published: i !== 1 })).id);
    await s.post(`/v1/auctions/${made[0]}/start`);
    const byRoom = await s.get(`/v1/auctions?roomId=${roomId}&limit=2`);
    const page = byRoom.json<{ data: AuctionBody[]; nextCursor: string | null }>();
    assert.deepEqual(
      page.data.map((a) => a.id),
      [made[2], made[1]],
    );
    const rest = await s.get(`/v1/auctions?roomId=${roomId}&limit=2&cursor=${page.nextCursor}`);
    assert.deepEqual(
      rest.json<{ data: AuctionBody[] }>().data.map((a) => a.id),
      [made[0]],
    );
    const live = await s.get(`/v1/auctions?roomId=${roomId}&status=live`);
    assert.deepEqual(
      live.json<{ data: AuctionBody[] }>().data.map((a) => a.id),
      [made[0]],
    );
    const published = await s.get(`/v1/auctions?roomId=${roomId}&published=false`);
    assert.deepEqual(
      published.json<{ data: AuctionBody[] }>().data.map((a) => a.id),
      [made[1]],
    );
  });

  test('events: auction.started holds auctionId and roomId; seq numbers every change without gaps', async () => {
    const a = await s.live({
      softClose: { windowSeconds: 3600, mode: 'extend', extendSeconds: 10, maxExtensions: 1 },
    });
    await s.bid(a.id, 'ann', { amount: 1000 });
    await s.bid(a.id, 'bob', { amount: 1100 });
    const started = await s.events('auction.started', a.id);
    assert.equal(started.length, 1);
    assert.equal(started[0]?.data.auctionId, a.id);
    assert.equal(started[0]?.data.roomId, a.roomId);
    const all = await s.events('auction.*', a.id);
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
    const log = await s.t.db.query<{ seq: string | number }>(
      'select seq from auction_log where auction_id = $1 order by seq',
      [a.id],
    );
    assert.deepEqual(
      log.rows.map((r) => Number(r.seq)),
      [1, 2, 3, 4, 5],
    );
  });

  test('actions: place_bid asks for confirmation always, cancel_auction is destructive', async () => {
    const res = await call(s.t.app, { method: 'GET', url: '/v1/actions', headers: keyOf(s.key) });
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
    const roomId = await s.room();
    const created = await call(s.t.app, {
      method: 'POST',
      url: '/v1/actions/create_auction',
      headers: keyOf(s.key),
      payload: {
        arguments: { roomId, title: 'By action', currency: 'JPY', startingPrice: 100, durationSeconds: 60 },
      },
    });
    assert.ok(created.statusCode < 300, created.body);
  });
});
