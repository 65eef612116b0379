import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { bearer, type TestTenant } from '../../../../test/factories.ts';
import { call, type TestApp } from '../../../../test/helper.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { AppError } from '../../../core/http/errors.ts';
import { auctionsIds } from '../../auctions/port.ts';
import { SettlementWorker } from '../settlement.ts';
import { STEP_LEASE_MS } from '../steps/step-keys.ts';
import { createPaymentRecord } from '../verbs/create-payment.ts';
import { stripeStepsFixture } from './steps-fixture.ts';
import {
  act,
  createPayment,
  customerActor,
  type ErrorBody,
  get,
  type PaymentView,
  type RefundView,
  refund,
} from './support.ts';

/**
 * Creates through the local Stripe (our row first, the PaymentIntent after it, with a key built from our
 * id) and the worker's recovery of calls whose instance died (steps.ts).
 */
describe('payments: creates at Stripe and their recovery, with the same idempotency key', () => {
  const f = stripeStepsFixture();
  let t: TestApp;
  let tenant: TestTenant;
  let key: string;
  before(() => {
    ({ t, tenant, key } = f.app());
  });

  test('create: our row first; an answer lost after Stripe made the PaymentIntent keeps the payment, and its next change gets that same PaymentIntent', async () => {
    const before = f.fake.intents.size;
    f.fake.loseAnswers(f.paths.create, 2);
    const res = await call(t.app, {
      method: 'POST',
      url: '/v1/payments',
      headers: bearer(key),
      payload: { amount: 2500, currency: 'EUR', customer: customerActor('test:lost-create') },
    });
    assert.equal(res.statusCode, 201, res.body);
    const created = res.json<PaymentView>();
    assert.equal(created.providerRef, null, 'Stripe’s answer never came');
    assert.equal(created.status, 'requires_payment_method');
    assert.equal(f.fake.intents.size, before + 1, 'Stripe made one PaymentIntent');
    const intent = [...f.fake.intents.values()].find((i) => i.metadata.svc_payment_id === created.id);
    assert.ok(intent !== undefined, 'the PaymentIntent names our payment');

    const confirmed = await act(t, key, created.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    assert.equal(confirmed.json<PaymentView>().providerRef, intent.id);
    assert.equal(confirmed.json<PaymentView>().status, 'succeeded');
    assert.equal(f.fake.intents.size, before + 1, 'no second PaymentIntent');
    const creates = f.sent((r) => f.paths.create(r) && r.form['metadata[svc_payment_id]'] === created.id);
    assert.equal(creates.length, 3);
    assert.ok(creates.every((c) => c.idempotencyKey === `svc-create-${created.id}`));
  });

  test('create: a lost create that Stripe then refuses on resume answers the change with the refusal; the next one goes on', async () => {
    f.fake.loseAnswers(f.paths.create, 2);
    const created = await createPayment(t, key, { amount: 1300 });
    assert.equal(created.providerRef, null);
    f.fake.refuse(f.paths.create);
    const refused = await act(t, key, created.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    assert.equal(refused.statusCode, 409, refused.body);
    assert.match(refused.json<ErrorBody>().message, /Stripe refused the request/);
    assert.equal((await f.read(created.id)).providerRef, null, 'still ours, still without its PaymentIntent');
    const confirmed = await act(t, key, created.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    assert.equal(confirmed.json<PaymentView>().status, 'succeeded');
    const intent = [...f.fake.intents.values()].filter((i) => i.metadata.svc_payment_id === created.id);
    assert.equal(intent.length, 1);
    assert.equal(confirmed.json<PaymentView>().providerRef, intent[0]?.id);
  });

  test('create: a PaymentIntent Stripe refuses leaves nothing on either side', async () => {
    const before = f.fake.intents.size;
    f.fake.refuse(f.paths.create);
    const res = await call(t.app, {
      method: 'POST',
      url: '/v1/payments',
      headers: bearer(key),
      payload: { amount: 2500, currency: 'EUR', customer: customerActor('test:refused-create') },
    });
    assert.equal(res.statusCode, 409, res.body);
    assert.match(res.json<ErrorBody>().message, /Stripe refused the request/);
    assert.equal(f.fake.intents.size, before);
    const listed = (await get(t, key, '/v1/payments?customer=test:refused-create')).json<{
      data: PaymentView[];
    }>();
    assert.equal(listed.data.length, 0);
  });

  test('create: an insert that fails (the auction already has a payment) never reaches Stripe', async () => {
    const auctionId = auctionsIds.newId('auction', f.clock.now());
    const sale = { amount: 700, currency: 'EUR', customer: customerActor('test:winner'), auctionId };
    const first = await createPaymentRecord(f.context(), sale);
    assert.match(first.providerRef ?? '', /^pi_/);
    const creates = f.sent(f.paths.create).length;
    await assert.rejects(createPaymentRecord(f.context(), sale), (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, 'conflict');
      return true;
    });
    assert.equal(f.sent(f.paths.create).length, creates, 'no request to Stripe for the refused insert');
  });

  test('recovery: the worker finishes a create and a refund whose instance died, with the same keys, once', async () => {
    // A create whose instance died after Stripe made the PaymentIntent.
    f.fake.loseAnswers(f.paths.create, 2);
    const lostCreate = await createPayment(t, key, {
      amount: 1500,
      customer: customerActor('test:recovered'),
    });
    assert.equal(lostCreate.providerRef, null);
    await f.dieMidCall(lostCreate.id);
    // A refund whose answer was lost: recorded pending, its amount counted, its call unanswered.
    const paid = await f.authorized(5000);
    assert.equal((await act(t, key, paid.id, 'capture')).statusCode, 200);
    f.fake.loseAnswers(f.paths.refunds(paid), 2);
    const lostRefund = await refund(t, key, paid.id, { amount: 2000 });
    assert.equal(lostRefund.statusCode, 201, lostRefund.body);
    assert.equal(lostRefund.json<RefundView>().status, 'pending');
    assert.equal(lostRefund.json<RefundView>().providerRef, null);
    assert.equal((await f.read(paid.id)).amountRefunded, 2000, 'counted while pending');
    const tooMuch = await refund(t, key, paid.id, { amount: 3001 });
    assert.equal(tooMuch.statusCode, 400, 'the pending refund holds its amount');
    assert.equal(f.performed(f.paths.refunds(paid)).length, 1, 'Stripe refunded once');

    const worker = new SettlementWorker(
      { ...t.app.services, log: t.app.log },
      { tenantIds: new Set([tenant.tenantId]), maxPollMs: 1000 },
    );
    f.workers.push(worker);
    worker.start();
    // Nothing is taken over while the leases run.
    assert.equal((await f.read(lostCreate.id)).providerRef, null);
    f.clock.advance(STEP_LEASE_MS + 1000);
    const intentId = await eventually(
      'the create recovered',
      async () => (await f.read(lostCreate.id)).providerRef ?? undefined,
    );
    assert.equal(
      f.fake.intents.get(intentId)?.metadata.svc_payment_id,
      lostCreate.id,
      'the PaymentIntent Stripe made first',
    );
    const refunds = await eventually('the refund recovered', async () => {
      const list = (await get(t, key, `/v1/payments/${paid.id}/refunds`)).json<{ data: RefundView[] }>();
      return list.data.every((r) => r.status === 'succeeded') ? list.data : undefined;
    });
    assert.equal(refunds.length, 1);
    assert.match(refunds[0]?.providerRef ?? '', /^re_/);
    assert.equal(f.performed(f.paths.refunds(paid)).length, 1, 'still one refund at Stripe');
    const refundCalls = f.sent(f.paths.refunds(paid));
    assert.equal(refundCalls.length, 3);
    assert.ok(refundCalls.every((c) => c.idempotencyKey === `svc-refund-${refunds[0]?.id}`));
    await f.ledgerOk();
  });
});
