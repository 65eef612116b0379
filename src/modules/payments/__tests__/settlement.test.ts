import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { createTestTenant } from '../../../../test/factories.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { inTenant } from '../../../core/context.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import { soldAuction } from '../ended-auction.ts';
import { SettlementWorker } from '../settlement.ts';
import { settleAuction } from '../verbs/settle-auction.ts';
import type { PaymentView } from './support.ts';
import { configurePayments, paymentsSuite, setPaymentsModule, systemContext } from './support.ts';

describe('payments: auction settlement through auction.ended', () => {
  const workers: SettlementWorker[] = [];
  after(async () => {
    for (const worker of workers) await worker.stop();
  });
  const s = paymentsSuite();

  const startWorker = (tenantId: string) => {
    const worker = new SettlementWorker(
      { ...s.t.app.services, log: s.t.app.log },
      { tenantIds: new Set([tenantId]), maxPollMs: 50 },
    );
    workers.push(worker);
    worker.start();
    return worker;
  };
  const context = (tenantId: string) => systemContext(s.t, tenantId);

  /** A live auction bought now by `test:<winner>`: it ends `bought_now` at its buy-now price. */
  const boughtNow = async (apiKey: string, winner: string, price = 5000) => {
    const roomId = `room-${randomUUID().slice(0, 8)}`;
    assert.equal((await s.as(apiKey).post('/v1/rooms', { id: roomId })).statusCode, 201);
    const created = await s.as(apiKey).post('/v1/auctions', {
      roomId,
      title: 'Lot',
      currency: 'EUR',
      startingPrice: 1000,
      buyNowPrice: price,
      durationSeconds: 600,
    });
    assert.equal(created.statusCode, 201, created.body);
    const auctionId = created.json<{ id: string }>().id;
    assert.equal((await s.as(apiKey).post(`/v1/auctions/${auctionId}/start`)).statusCode, 200);
    const bought = await s.as(apiKey).post(`/v1/auctions/${auctionId}/buy-now`, {
      actor: { type: 'end_user', id: `test:${winner}`, identityProvider: 'test' },
    });
    assert.equal(bought.statusCode, 201, bought.body);
    return { auctionId, roomId };
  };
  const paymentsOf = async (apiKey: string, auctionId: string) =>
    (await s.as(apiKey).get(`/v1/payments?auctionId=${auctionId}`)).json<{ data: PaymentView[] }>().data;

  test('a bought-now auction gets one payment for its winner, at the final price', async () => {
    const { auctionId, roomId } = await boughtNow(s.key, 'winner-1', 7500);
    startWorker(s.tenant.tenantId);
    const [payment] = await eventually('the settlement payment', async () => {
      const found = await paymentsOf(s.key, auctionId);
      return found.length > 0 ? found : undefined;
    });
    assert.ok(payment !== undefined);
    assert.equal(payment.amount, 7500);
    assert.equal(payment.currency, 'EUR');
    assert.deepEqual(payment.customer, { type: 'end_user', id: 'test:winner-1', identityProvider: 'test' });
    assert.equal(payment.seller, `room:${roomId}`);
    assert.equal(payment.auctionId, auctionId);
    assert.equal(payment.status, 'requires_payment_method');
    assert.deepEqual(payment.metadata, { auctionId, roomId, outcome: 'bought_now' });
  });

  test('the event seen twice, settled by racing attempts and two workers: still one payment', async () => {
    const own = await createTestTenant(s.t);
    const { auctionId, roomId } = await boughtNow(own.apiKey, 'winner-2');
    const ctx = context(own.tenantId);
    // The same auction.ended delivered again (its outbox writer runs again): one settlement row.
    const { rows: ended } = await tenantRead<{ data: Record<string, unknown> }>(
      s.t.db,
      { tenantId: own.tenantId },
      `select data from events where type = 'auction.ended' and data ->> 'auctionId' = $1`,
      [auctionId],
    );
    assert.equal(ended.length, 1);
    const data = ended[0]?.data ?? {};
    await inTenant(ctx, async (_tx, emit) => {
      await emit('auction.ended', data);
    });
    await Promise.all([
      settleAuction(ctx, auctionId),
      settleAuction(ctx, auctionId),
      settleAuction(ctx, auctionId),
    ]);
    startWorker(own.tenantId);
    startWorker(own.tenantId);
    await inTenant(ctx, async (_tx, emit) => {
      await emit('auction.ended', data);
    });
    await eventually('both workers to have looked', async () => {
      const { rows } = await tenantRead<{ state: string }>(
        s.t.db,
        { tenantId: own.tenantId },
        'select state from payment_settlements where auction_id = $1',
        [auctionId],
      );
      return rows.length === 1 && rows[0]?.state === 'settled' ? true : undefined;
    });
    const payments = await paymentsOf(own.apiKey, auctionId);
    assert.equal(payments.length, 1, JSON.stringify(payments));
    assert.equal(payments[0]?.seller, `room:${roomId}`);
    const types = (await s.as(own.apiKey).events()).map((e) => e.type);
    assert.equal(types.filter((type) => type === 'payment.created').length, 1);
  });

  test('settleAuctions off: the ended auction is recorded and skipped, no payment', async () => {
    const own = await createTestTenant(s.t);
    await configurePayments(s.t, own, { settleAuctions: false });
    const { auctionId } = await boughtNow(own.apiKey, 'winner-3');
    assert.equal(await settleAuction(context(own.tenantId), auctionId), undefined);
    assert.deepEqual(await paymentsOf(own.apiKey, auctionId), []);
  });

  test('payments disabled for the tenant: no payment for its ended auctions', async () => {
    const own = await createTestTenant(s.t);
    const { auctionId } = await boughtNow(own.apiKey, 'winner-4');
    await setPaymentsModule(s.t, own, { enabled: false });
    assert.equal(await settleAuction(context(own.tenantId), auctionId), undefined);
    const { rows } = await tenantRead<{ n: string }>(
      s.t.db,
      { tenantId: own.tenantId },
      'select count(*)::text as n from payments where auction_id = $1',
      [auctionId],
    );
    assert.equal(rows[0]?.n, '0');
  });

  test('which auction.ended data settles: sold or bought_now, with a winner and a price', () => {
    const base = {
      auctionId: 'auc_1',
      roomId: 'r',
      finalPrice: 100,
      currency: 'EUR',
      winner: { type: 'end_user', id: 'test:w', identityProvider: 'test' },
    };
    assert.deepEqual(soldAuction({ ...base, outcome: 'sold' })?.winner, base.winner);
    assert.equal(soldAuction({ ...base, outcome: 'bought_now' })?.finalPrice, 100);
    assert.equal(soldAuction({ ...base, outcome: 'unsold', winner: null, finalPrice: null }), undefined);
    assert.equal(soldAuction({ ...base, outcome: 'sold', winner: null }), undefined);
    assert.equal(soldAuction({ ...base, outcome: 'sold', finalPrice: 0 }), undefined);
    // The winner is the API's Actor object: the old shape (an internal id beside externalId) is not one.
    const internal = { id: '7d0c6f1e-0000-4000-8000-000000000000', type: 'end_user', externalId: 'test:w' };
    assert.equal(soldAuction({ ...base, outcome: 'sold', winner: internal }), undefined);
  });
});
