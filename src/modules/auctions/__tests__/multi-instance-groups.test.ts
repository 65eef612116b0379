import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import { testConfig } from '../../../../test/helper.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { systemTx } from '../../../core/db/tenant-tx.ts';
import { hourLongAuction, twoInstances } from './multi-instance-support.ts';
import { bidder, type ErrorBody, placeBid, post } from './support.ts';

/** Bid groups on two instances: each decides on the auction's row as it is, and no two groups deadlock. */

const instances = twoInstances();

describe('auction bid groups on two instances', () => {
  test('an instance decides on the auction as it is, not as its own last group left it', async () => {
    const { a, b, ownDb } = instances();
    const { apiKey, auction } = await hourLongAuction(a);
    const refusal = (res: { statusCode: number; json<T>(): T; body: string }) => {
      assert.equal(res.statusCode, 409, res.body);
      // The rule's code, then the price the refusal names.
      return res
        .json<ErrorBody>()
        .details?.filter((d) => d.code !== 'minimum_bid')
        .map((d) => (d.code === 'current_price' ? `${d.code}:${d.message}` : d.code));
    };
    // a's second bid is decided on the state its first left, written without a lock (one statement).
    assert.equal((await placeBid(a, apiKey, auction.id, 'x', { amount: 100 })).statusCode, 201);
    assert.equal((await placeBid(a, apiKey, auction.id, 'y', { amount: 110 })).statusCode, 201);
    // b moves the auction to 500: a's 120 met the rules of the state a knows, not of the auction's.
    assert.equal((await placeBid(b, apiKey, auction.id, 'z', { amount: 500 })).statusCode, 201);
    assert.deepEqual(refusal(await placeBid(a, apiKey, auction.id, 'x', { amount: 120 })), [
      'bid_too_low',
      'current_price:500',
    ]);
    const next = await placeBid(a, apiKey, auction.id, 'x', { amount: 510 });
    assert.equal(next.statusCode, 201, next.body);
    assert.equal(next.json<{ bid: { seq: number } }>().bid.seq, auction.seq + 4, "seq follows b's bid");

    // b cancels it; on a, a bid too low for the state a knows is refused for what the auction is now.
    assert.equal((await post(b, apiKey, `/v1/auctions/${auction.id}/cancel`, {})).statusCode, 200);
    assert.equal(
      refusal(await placeBid(a, apiKey, auction.id, 'y', { amount: 100 }))?.[0],
      'auction_not_live',
    );
    assert.equal(
      refusal(await placeBid(a, apiKey, auction.id, 'y', { amount: 900 }))?.[0],
      'auction_not_live',
    );

    const { rows } = await systemTx(ownDb ?? a.db, (tx) =>
      tx.query<{ seq: string }>('select seq from auction_bids where auction_id = $1 order by seq', [
        auction.id,
      ]),
    );
    assert.deepEqual(
      rows.map((r) => Number(r.seq)),
      [1, 2, 3, 4].map((n) => auction.seq + n),
      'four bids, each at its own seq',
    );
  });

  test('a group written without the lock waits for the row before its keys: no deadlock with a locked group', {
    skip: testConfig().databaseUrl === undefined && 'needs PostgreSQL: a second connection holds the row',
  }, async () => {
    const { a } = instances();
    const { apiKey, auction } = await hourLongAuction(a);
    // a knows the auction and both bidders: its next groups are written unlocked, in one statement.
    assert.equal((await placeBid(a, apiKey, auction.id, 'x', { amount: 100 })).statusCode, 201);
    assert.equal((await placeBid(a, apiKey, auction.id, 'y', { amount: 110 })).statusCode, 201);
    const holder = new pg.Client({ connectionString: testConfig().databaseUrl });
    await holder.connect();
    try {
      const actorOf = async (name: string) => {
        const { rows } = await holder.query<{ id: string }>(
          'select id::text from actors where external_id = $1 and tenant_id = (select tenant_id from auctions where id = $2)',
          [bidder(name).id, auction.id],
        );
        return rows[0]?.id;
      };
      // As another instance's locked group would: the row first, then the key of the same bid (a retry
      // that reached the other instance) while a's statement for it is under way.
      for (const [who, amounts, status] of [
        ['x', { amount: 120, clientBidId: 'race-1' }, 201], // accepted: the row is updated
        ['y', { amount: 110, clientBidId: 'race-2' }, 409], // too low: the row is only read
      ] as const) {
        await holder.query('begin');
        await holder.query('select 1 from auctions where id = $1 for update', [auction.id]);
        const bid = placeBid(a, apiKey, auction.id, who, amounts);
        await eventually("a's statement waiting for the row this connection holds", async () => {
          const { rows } = await holder.query(
            `select 1 from pg_locks where locktype = 'transactionid' and not granted
               and transactionid = xid(pg_current_xact_id())`,
          );
          return rows.length === 1;
        });
        await holder.query(
          `insert into auction_client_bids (tenant_id, auction_id, bidder_actor_id, client_bid_id)
           select tenant_id, id, $2::uuid, $3 from auctions where id = $1 on conflict do nothing`,
          [auction.id, await actorOf(who), amounts.clientBidId],
        );
        await holder.query('commit');
        // The key is the other group's now: a's bid is decided again under the lock (no first result
        // was written with it here, so it is decided afresh).
        const res = await bid;
        assert.equal(res.statusCode, status, res.body);
      }
    } finally {
      await holder.query('rollback').catch(() => undefined);
      await holder.end();
    }
  });
});
