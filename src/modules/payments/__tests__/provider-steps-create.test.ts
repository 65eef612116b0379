import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventually } from '../../../../test/support/eventually.ts';
import { AppError } from '../../../core/http/errors.ts';
import { auctionsIds } from '../../auctions/port.ts';
import { SettlementWorker } from '../settlement.ts';
import { STEP_LEASE_MS } from '../steps/step-keys.ts';
import { createPaymentRecord } from '../verbs/create-payment.ts';
import { StepsSuite } from './steps-fixture.ts';
import { customerActor, type ErrorBody, type PaymentView, type RefundView } from './support.ts';

/**
 * Creates through the local Stripe (our row first, the PaymentIntent after it, with a key built from our
 * id) and the worker's recovery of calls whose instance died (steps.ts).
 */
describe('payments: creates at Stripe and their recovery, with the same idempotency key', () => {
  const s = new StepsSuite();

  test('create: our row first; an answer lost after Stripe made the PaymentIntent keeps the payment, and its next change gets that same PaymentIntent', async () => {
    const before = s.fake.intents.size;
    s.fake.loseAnswers(s.paths.create, 2);
    const res = await s.post('/v1/payments', {
      amount: 2500,
      currency: 'EUR',
      customer: customerActor('test:lost-create'),
    });
    assert.equal(res.statusCode, 201, res.body);
    const created = res.json<PaymentView>();
    assert.equal(created.providerRef, null, 'Stripe’s answer never came');
    assert.equal(created.status, 'requires_payment_method');
    assert.equal(s.fake.intents.size, before + 1, 'Stripe made one PaymentIntent');
    const intent = [...s.fake.intents.values()].find((i) => i.metadata.svc_payment_id === created.id);
    assert.ok(intent !== undefined, 'the PaymentIntent names our payment');

    const confirmed = await s.act(created.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    assert.equal(confirmed.json<PaymentView>().providerRef, intent.id);
    assert.equal(confirmed.json<PaymentView>().status, 'succeeded');
    assert.equal(s.fake.intents.size, before + 1, 'no second PaymentIntent');
    const creates = s.sent((r) => s.paths.create(r) && r.form['metadata[svc_payment_id]'] === created.id);
    assert.equal(creates.length, 3);
    assert.ok(creates.every((c) => c.idempotencyKey === `svc-create-${created.id}`));
  });

  test('create: a lost create that Stripe then refuses on resume answers the change with the refusal; the next one goes on', async () => {
    s.fake.loseAnswers(s.paths.create, 2);
    const created = await s.createPayment({ amount: 1300 });
    assert.equal(created.providerRef, null);
    s.fake.refuse(s.paths.create);
    const refused = await s.act(created.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    assert.equal(refused.statusCode, 409, refused.body);
    assert.match(refused.json<ErrorBody>().message, /Stripe refused the request/);
    assert.equal((await s.read(created.id)).providerRef, null, 'still ours, still without its PaymentIntent');
    const confirmed = await s.act(created.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    assert.equal(confirmed.json<PaymentView>().status, 'succeeded');
    const intent = [...s.fake.intents.values()].filter((i) => i.metadata.svc_payment_id === created.id);
    assert.equal(intent.length, 1);
    assert.equal(confirmed.json<PaymentView>().providerRef, intent[0]?.id);
  });

  test('create: a PaymentIntent Stripe refuses leaves nothing on either side', async () => {
    const before = s.fake.intents.size;
    s.fake.refuse(s.paths.create);
    const res = await s.post('/v1/payments', {
      amount: 2500,
      currency: 'EUR',
      customer: customerActor('test:refused-create'),
    });
    assert.equal(res.statusCode, 409, res.body);
    assert.match(res.json<ErrorBody>().message, /Stripe refused the request/);
    assert.equal(s.fake.intents.size, before);
    const listed = (await s.get('/v1/payments?customer=test:refused-create')).json<{
      data: PaymentView[];
    }>();
    assert.equal(listed.data.length, 0);
  });

  test('create: an insert that fails (the auction already has a payment) never reaches Stripe', async () => {
    const auctionId = auctionsIds.newId('auction', s.clock.now());
    const sale = { amount: 700, currency: 'EUR', customer: customerActor('test:winner'), auctionId };
    const first = await createPaymentRecord(s.context(), sale);
    assert.match(first.providerRef ?? '', /^pi_/);
    const creates = s.sent(s.paths.create).length;
    await assert.rejects(createPaymentRecord(s.context(), sale), (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, 'conflict');
      return true;
    });
    assert.equal(s.sent(s.paths.create).length, creates, 'no request to Stripe for the refused insert');
  });

  test('recovery: the worker finishes a create and a refund whose instance died, with the same keys, once', async () => {
    // A create whose instance died after Stripe made the PaymentIntent.
    s.fake.loseAnswers(s.paths.create, 2);
    const lostCreate = await s.createPayment({
      amount: 1500,
      customer: customerActor('test:recovered'),
    });
    assert.equal(lostCreate.providerRef, null);
    await s.dieMidCall(lostCreate.id);
    // A refund whose answer was lost: recorded pending, its amount counted, its call unanswered.
    const paid = await s.held(5000);
    assert.equal((await s.act(paid.id, 'capture')).statusCode, 200);
    s.fake.loseAnswers(s.paths.refunds(paid), 2);
    const lostRefund = await s.refund(paid.id, { amount: 2000 });
    assert.equal(lostRefund.statusCode, 201, lostRefund.body);
    assert.equal(lostRefund.json<RefundView>().status, 'pending');
    assert.equal(lostRefund.json<RefundView>().providerRef, null);
    assert.equal((await s.read(paid.id)).amountRefunded, 2000, 'counted while pending');
    const tooMuch = await s.refund(paid.id, { amount: 3001 });
    assert.equal(tooMuch.statusCode, 400, 'the pending refund holds its amount');
    assert.equal(s.performed(s.paths.refunds(paid)).length, 1, 'Stripe refunded once');

    const worker = new SettlementWorker(
      { ...s.t.app.services, log: s.t.app.log },
      { tenantIds: new Set([s.tenant.tenantId]), maxPollMs: 1000 },
    );
    s.workers.push(worker);
    worker.start();
    // Nothing is taken over while the leases run.
    assert.equal((await s.read(lostCreate.id)).providerRef, null);
    // Its first look is over and it sleeps on the manual clock: the advance below is what wakes it.
    await worker.idle();
    s.clock.advance(STEP_LEASE_MS + 1000);
    const intentId = await eventually(
      'the create recovered',
      async () => (await s.read(lostCreate.id)).providerRef ?? undefined,
    );
    assert.equal(
      s.fake.intents.get(intentId)?.metadata.svc_payment_id,
      lostCreate.id,
      'the PaymentIntent Stripe made first',
    );
    const refunds = await eventually('the refund recovered', async () => {
      const list = (await s.get(`/v1/payments/${paid.id}/refunds`)).json<{ data: RefundView[] }>();
      return list.data.every((r) => r.status === 'succeeded') ? list.data : undefined;
    });
    assert.equal(refunds.length, 1);
    assert.match(refunds[0]?.providerRef ?? '', /^re_/);
    assert.equal(s.performed(s.paths.refunds(paid)).length, 1, 'still one refund at Stripe');
    const refundCalls = s.sent(s.paths.refunds(paid));
    assert.equal(refundCalls.length, 3);
    assert.ok(refundCalls.every((c) => c.idempotencyKey === `svc-refund-${refunds[0]?.id}`));
    await s.ledgerOk();
  });
});
