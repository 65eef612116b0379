import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { bearer, createTestTenant } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { assertBalanced, platformFee, refundedFee } from '../ledger.ts';
import type { PaymentView, RefundView } from './support.ts';
import { configurePayments, customerActor, type ErrorBody, paymentsSuite } from './support.ts';

interface Check {
  ok: boolean;
  transactions: number;
  postings: number;
  unbalancedTransactions: string[];
  mismatchedAccounts: string[];
}
interface Account {
  account: string;
  currency: string;
  balance: number;
}

describe('payments: refunds and the ledger', () => {
  const s = paymentsSuite();
  before(() => configurePayments(s.t, s.tenant, { feeBasisPoints: 1000, feeFixed: 30 }));

  const balances = async (): Promise<Map<string, number>> => {
    const accounts = await s.allPages<Account>('/v1/ledger/accounts');
    return new Map(accounts.map((a) => [`${a.account} ${a.currency}`, a.balance]));
  };
  const check = async (): Promise<Check> => {
    const res = await s.get('/v1/ledger/check');
    assert.equal(res.statusCode, 200, res.body);
    return res.json<Check>();
  };

  test('a capture posts the sale: the customer pays, the seller is owed the price less the fee', async () => {
    const payment = await s.paidPayment({
      amount: 10_000,
      customer: customerActor('test:carol'),
      seller: 'shop-1',
    });
    assert.equal(payment.applicationFee, 1030, '10 % + 30');
    const txs = await s.get(`/v1/ledger/transactions?paymentId=${payment.id}`);
    const data = txs.json<{ data: { kind: string; postings: { account: string; amount: number }[] }[] }>()
      .data;
    assert.equal(data.length, 1);
    assert.equal(data[0]?.kind, 'capture');
    assert.deepEqual(
      data[0]?.postings.map((p) => [p.account, p.amount]),
      [
        ['customer:test:carol', -10_000],
        ['seller:shop-1:payable', 8970],
        ['platform:fees', 1030],
      ],
    );
    const postings = await s.get('/v1/ledger/accounts/seller:shop-1:payable/postings');
    assert.equal(postings.statusCode, 200, postings.body);
    assert.deepEqual(
      postings.json<{ data: { amount: number }[] }>().data.map((p) => p.amount),
      [8970],
    );
    const balance = await s.post('/v1/actions/get_balance', { arguments: { account: 'platform:fees' } });
    assert.equal(balance.statusCode, 200, balance.body);
    assert.match(balance.body, /"balance":\d+/);
    assert.deepEqual((await check()).ok, true);
    const console = await call(s.t.app, {
      method: 'GET',
      url: `/api/console/tenants/${s.tenant.tenantId}/payments/ledger-check`,
      headers: bearer(s.tenant.ownerToken),
    });
    assert.equal(console.statusCode, 200, console.body);
    assert.equal(console.json<Check>().ok, true);
    assert.ok(console.json<Check>().transactions >= 1);
  });

  test('refunds add up to at most the captured amount; the fee comes back in proportion', async () => {
    const payment = await s.paidPayment({
      amount: 5000,
      customer: customerActor('test:dave'),
      seller: 'shop-2',
      captureMethod: 'manual',
    });
    const captured = await s.act(payment.id, 'capture', { amountToCapture: 4000 });
    assert.equal(captured.json<PaymentView>().amountCaptured, 4000);
    const fee = captured.json<PaymentView>().applicationFee;
    assert.equal(fee, 430);
    const r1 = await s.refund(payment.id, { amount: 1500, reason: 'requested_by_customer' });
    assert.equal(r1.statusCode, 201, r1.body);
    const refund1 = r1.json<RefundView>();
    assert.match(refund1.id, /^re_[0-9a-z]{26}$/);
    assert.equal(refund1.status, 'succeeded');
    assert.equal(refund1.amount, 1500);
    const beyond = await s.refund(payment.id, { amount: 2501 });
    assert.equal(beyond.statusCode, 400, beyond.body);
    const error = beyond.json<ErrorBody>();
    assert.equal(error.error, 'invalid_request');
    assert.equal(error.details?.[0]?.code, 'amount_too_large');
    assert.match(error.details?.[0]?.message ?? '', /at most 2500/);
    const rest = await s.refund(payment.id);
    assert.equal(rest.statusCode, 201, rest.body);
    assert.equal(rest.json<RefundView>().amount, 2500, 'the default is what is left');
    const none = await s.refund(payment.id, { amount: 1 });
    assert.equal(none.statusCode, 400);
    const after = (await s.get(`/v1/payments/${payment.id}`)).json<PaymentView>();
    assert.equal(after.amountRefunded, 4000);
    const list = await s.get(`/v1/payments/${payment.id}/refunds`);
    assert.deepEqual(
      list.json<{ data: RefundView[] }>().data.map((r) => r.amount),
      [1500, 2500],
    );
    const b = await balances();
    assert.equal(b.get('seller:shop-2:payable EUR'), 0, 'refunded in full: the seller is owed nothing');
    assert.equal(b.get('customer:test:dave EUR'), 0);
    const fees = await s.get(`/v1/ledger/transactions?paymentId=${payment.id}`);
    const feePostings = fees
      .json<{ data: { postings: { account: string; amount: number }[] }[] }>()
      .data.flatMap((tx) => tx.postings.filter((p) => p.account === 'platform:fees').map((p) => p.amount));
    assert.equal(
      feePostings.reduce((a, b) => a + b, 0),
      0,
      'the whole fee came back',
    );
    assert.equal((await check()).ok, true);
  });

  test('refund of a payment not succeeded: 409 naming the status', async () => {
    const payment = await s.createPayment();
    const res = await s.refund(payment.id);
    assert.equal(res.statusCode, 409);
    assert.match(res.json<ErrorBody>().message, /requires_payment_method/);
  });

  test('postings cannot be changed or deleted, not even by the tenant role', async () => {
    await s.paidPayment({ amount: 100, seller: 'shop-3' });
    const { tenantRead } = await import('../../../core/db/tenant-tx.ts');
    await assert.rejects(
      tenantRead(s.t.db, { tenantId: s.tenant.tenantId }, 'update ledger_postings set amount = amount + 1'),
      /permission denied/,
    );
    await assert.rejects(
      tenantRead(s.t.db, { tenantId: s.tenant.tenantId }, 'delete from ledger_transactions'),
      /permission denied/,
    );
  });

  test('balanced after a randomized sequence of 500 operations', async () => {
    // A fresh tenant, so the check covers exactly this sequence.
    const own = s.as((await createTestTenant(s.t)).apiKey);
    // mulberry32: a seeded sequence, the same on every run.
    let seed = 42;
    const random = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
      return Math.floor((((x ^ (x >>> 14)) >>> 0) / 4_294_967_296) * n);
    };
    const open: PaymentView[] = [];
    const held: PaymentView[] = [];
    const paid: PaymentView[] = [];
    const currencies = ['EUR', 'USD', 'JPY'];
    let operations = 0;
    let refundedTotal = 0;
    while (operations < 500) {
      operations++;
      const choice = random(6);
      if (choice === 0 || open.length + held.length + paid.length === 0) {
        const body: Record<string, unknown> = {
          amount: 1 + random(100_000),
          currency: currencies[random(3)],
          captureMethod: random(2) === 0 ? 'manual' : 'automatic',
        };
        if (random(3) > 0) body.customer = customerActor(`test:c${random(5)}`);
        if (random(3) > 0) body.seller = `s${random(4)}`;
        open.push(await own.createPayment(body));
      } else if (choice === 1 && open.length > 0) {
        const p = open.splice(random(open.length), 1)[0];
        if (p === undefined) continue;
        const method = ['pm_card_visa', 'pm_card_chargeDeclined', 'pm_card_visa'][random(3)];
        const res = await own.act(p.id, 'confirm', { paymentMethod: method });
        const next = res.json<PaymentView>();
        if (next.status === 'succeeded') paid.push(next);
        else if (next.status === 'requires_capture') held.push(next);
        else open.push(next);
      } else if (choice === 2 && held.length > 0) {
        const p = held.splice(random(held.length), 1)[0];
        if (p === undefined) continue;
        const res = await own.act(p.id, 'capture', { amountToCapture: 1 + random(p.amount) });
        assert.equal(res.statusCode, 200, res.body);
        paid.push(res.json<PaymentView>());
      } else if ((choice === 3 || choice === 4) && paid.length > 0) {
        const p = paid[random(paid.length)];
        if (p === undefined) continue;
        const res = await own.refund(p.id, { amount: 1 + random(Math.max(1, Math.floor(p.amount / 2))) });
        if (res.statusCode === 201) refundedTotal += res.json<RefundView>().amount;
        else assert.equal(res.statusCode, 400, res.body);
      } else if (choice === 5 && open.length + held.length > 0) {
        const from = random(2) === 0 && held.length > 0 ? held : open;
        const p = from.splice(random(from.length), 1)[0];
        if (p === undefined) continue;
        const res = await own.act(p.id, 'cancel');
        assert.equal(res.statusCode, 200, res.body);
      }
    }
    assert.ok(
      paid.length > 20 && refundedTotal > 0,
      `the sequence captured (${paid.length}) and refunded (${refundedTotal})`,
    );
    const res = await own.get('/v1/ledger/check');
    const result = res.json<Check>();
    assert.equal(result.ok, true, res.body);
    assert.ok(result.transactions > 20);
    const accounts = await own.allPages<Account>('/v1/ledger/accounts');
    const sums = new Map<string, number>();
    for (const a of accounts) sums.set(a.currency, (sums.get(a.currency) ?? 0) + a.balance);
    for (const [currency, sum] of sums) assert.equal(sum, 0, `${currency} balances sum to zero`);
    // The books name who owes whom; there is no provider clearing account (docs/payments.md#ledger).
    const names = accounts.map((a) => a.account);
    assert.deepEqual(
      names.filter((n) => !/^(customer:|seller:.+:payable$|platform:(fees|sales)$|world$)/.test(n)),
      [],
    );
  });
});

describe('ledger arithmetic', () => {
  test('fees: basis points rounded down plus the fixed part, never above the amount, exact for large amounts', () => {
    assert.equal(platformFee(10_000, { feeBasisPoints: 250, feeFixed: 30 }), 280);
    assert.equal(platformFee(10, { feeBasisPoints: 0, feeFixed: 30 }), 10);
    assert.equal(platformFee(999_999_999_999, { feeBasisPoints: 9999, feeFixed: 0 }), 999_899_999_999);
  });
  test('refunded fees add up to the fee when the whole amount is refunded, in any pieces', () => {
    for (const pieces of [
      [1, 1, 1],
      [333, 334, 333],
      [999, 1],
    ]) {
      let before = 0;
      let back = 0;
      for (const piece of pieces) {
        back += refundedFee(97, 1000, before, piece);
        before += piece;
      }
      assert.equal(before === 1000 ? back : 97, 97);
    }
  });
  test('an unbalanced transaction is refused before it is written', () => {
    for (const other of [
      { account: 'b', amount: -4, currency: 'EUR' },
      { account: 'b', amount: -5, currency: 'USD' },
    ]) {
      assert.throws(
        () => assertBalanced([{ account: 'a', amount: 5, currency: 'EUR' }, other]),
        /unbalanced/,
      );
    }
  });
});
