import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestTenant } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { type Frame, TestClient } from '../../../../test/realtime-gateway/client.ts';
import { createRoom, sessionToken } from '../../../../test/realtime-gateway/fixtures.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { systemTx } from '../../../core/db/tenant-tx.ts';
import { incrementAt } from '../rules.ts';
import { twoInstances } from './multi-instance-support.ts';
import { type AuctionBody, bidder, eventsOf, liveAuction } from './support.ts';

/**
 * Two app instances on one database (each its own PostgreSQL pool with DATABASE_URL; one PGlite
 * otherwise) and one backplane: 50 bidders place 2,000 bids on one auction at once through both. The
 * bids are decided one at a time in commit order: afterwards the invariants hold, and every socket in the
 * room saw the same frames in the same order.
 */

const BIDDERS = 50;
const BIDS = 2000;
const INCREMENTS = [
  { from: 0, increment: 10 },
  { from: 10_000, increment: 50 },
];

interface BidRow {
  seq: number;
  bidder_external: string;
  max_amount: number;
  price_after: number;
  leading_after: boolean;
}

const instances = twoInstances();

describe('auctions on two instances', () => {
  test('50 bidders, 2,000 bids at once on one auction: no lost update, one leader, gapless seq, same frames everywhere', async () => {
    const { a, b, ownDb } = instances();
    const tenant = await createTestTenant(a);
    const apiKey = tenant.apiKey;
    const roomId = await createRoom(a, apiKey);
    const sockets: TestClient[] = [];
    for (const instance of [a, b, a, b]) {
      const client = await TestClient.connect(
        instance.wsUrl,
        await sessionToken(instance, apiKey, { modules: ['rooms', 'auctions'] }),
      );
      await client.join(roomId);
      sockets.push(client);
    }
    const auction = await liveAuction(a, apiKey, {
      roomId,
      startingPrice: 100,
      reservePrice: 20_000,
      increments: INCREMENTS,
      durationSeconds: 3600,
      softClose: { windowSeconds: 0, mode: 'extend', extendSeconds: 1, maxExtensions: 0 },
    });

    let sent = 0;
    let accepted = 0;
    const refusals = new Map<string, number>();
    const bidderLoop = async (n: number) => {
      const via = n % 2 === 0 ? a : b;
      let known = 100;
      while (sent < BIDS) {
        sent += 1;
        const proxy = sent % 3 !== 0;
        const step = 10 + ((sent * 7919 + n * 104_729) % 300);
        const res = await call(via.app, {
          method: 'POST',
          url: `/v1/auctions/${auction.id}/bids`,
          headers: { 'x-api-key': apiKey },
          payload: {
            ...(proxy ? { maxAmount: known + step } : { amount: known + (step % 60) }),
            actor: bidder(`b${n}`),
          },
        });
        if (res.statusCode === 201) {
          accepted += 1;
          known = res.json<{ auction: AuctionBody }>().auction.minimumBid ?? known;
        } else {
          const body = res.json<{ details?: { code?: string; message: string }[] }>();
          const code = body.details?.[0]?.code ?? String(res.statusCode);
          refusals.set(code, (refusals.get(code) ?? 0) + 1);
          const minimum = body.details?.find((d) => d.code === 'minimum_bid')?.message;
          if (minimum !== undefined) known = Number(minimum);
          assert.ok(res.statusCode === 409, `${res.statusCode} ${JSON.stringify(body)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: BIDDERS }, (_, n) => bidderLoop(n)));
    assert.ok(accepted > BIDDERS, `only ${accepted} bids were accepted`);
    assert.deepEqual(
      [...refusals.keys()].filter((code) => code !== 'bid_too_low' && code !== 'self_outbid'),
      [],
    );

    // The end passes; both instances see it with the next bids at once: it ends exactly once.
    const db = ownDb ?? a.db;
    await systemTx(db, (tx) =>
      tx.query(`update auctions set ends_at = now() - interval '1 second' where id = $1`, [auction.id]),
    );
    const late = await Promise.all(
      [a, b, a, b].map((via, i) =>
        call(via.app, {
          method: 'POST',
          url: `/v1/auctions/${auction.id}/bids`,
          headers: { 'x-api-key': apiKey },
          payload: { maxAmount: 1_000_000, actor: bidder(`late${i}`) },
        }),
      ),
    );
    for (const res of late) assert.equal(res.statusCode, 409, res.body);
    const ended = await eventsOf(a, apiKey, 'auction.ended', auction.id);
    assert.equal(ended.length, 1, 'exactly one auction.ended');

    const final = (
      await call(a.app, {
        method: 'GET',
        url: `/v1/auctions/${auction.id}`,
        headers: { 'x-api-key': apiKey },
      })
    ).json<AuctionBody>();
    assert.equal(final.status, 'ended');
    assert.equal(final.bidCount, accepted, 'no accepted bid lost');

    const { rows } = await systemTx(db, (tx) =>
      tx.query<{
        seq: string | number;
        external: string;
        max_amount: string | number;
        price_after: string | number;
        leading_after: boolean;
      }>(
        `select seq, bidder->>'externalId' as external, max_amount, price_after, leading_after
           from auction_bids where auction_id = $1 order by seq`,
        [auction.id],
      ),
    );
    const bids: BidRow[] = rows.map((r) => ({
      seq: Number(r.seq),
      bidder_external: r.external,
      max_amount: Number(r.max_amount),
      price_after: Number(r.price_after),
      leading_after: r.leading_after,
    }));
    assert.equal(bids.length, accepted);
    let price: number | null = null;
    let leaderMax = 0;
    let leader = '';
    for (const bid of bids) {
      const minimum = price === null ? 100 : price + incrementAt(INCREMENTS, price);
      assert.ok(bid.max_amount >= minimum, `bid ${bid.seq} met the minimum ${minimum} at its turn`);
      assert.ok(price === null || bid.price_after >= price, `the price never decreases (seq ${bid.seq})`);
      if (bid.leading_after) {
        assert.ok(
          bid.max_amount > leaderMax || bid.bidder_external === leader,
          `a new leader outbid (seq ${bid.seq})`,
        );
        leaderMax = bid.max_amount;
        leader = bid.bidder_external;
      } else {
        assert.ok(
          bid.max_amount <= leaderMax,
          `an outbid bid was at most the leader's maximum (seq ${bid.seq})`,
        );
      }
      assert.ok(bid.price_after <= leaderMax, 'the leader never pays above its maximum');
      price = bid.price_after;
    }
    const highest = Math.max(...bids.map((x) => x.max_amount));
    assert.equal(leaderMax, highest, 'the leader holds the highest maximum');
    assert.equal(final.leadingBid?.bidder.id, leader);
    assert.equal(final.currentPrice, price);

    const { rows: log } = await systemTx(db, (tx) =>
      tx.query<{ seq: string | number }>('select seq from auction_log where auction_id = $1 order by seq', [
        auction.id,
      ]),
    );
    const seqs = log.map((r) => Number(r.seq));
    assert.deepEqual(
      seqs,
      Array.from({ length: final.seq }, (_, i) => i + 1),
      'seq is gapless',
    );

    const framesOf = (client: TestClient) =>
      client.frames
        .filter((f: Frame) => f.type.startsWith('auction.') && f.auctionId === auction.id)
        .map((f) => `${f.type}#${String(f.seq)}`);
    for (const client of sockets)
      await eventually('every frame to reach every socket', () => framesOf(client).length >= final.seq);
    const reference = framesOf(sockets[0] as TestClient);
    assert.equal(reference.length, final.seq, 'each frame once');
    assert.deepEqual(
      reference.map((f) => Number(f.split('#')[1])),
      seqs,
      'in seq order',
    );
    for (const client of sockets.slice(1))
      assert.deepEqual(framesOf(client), reference, 'the same frames in the same order');
    for (const client of sockets) await client.close();
  });
});
