import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Stripe from 'stripe';
import { bearer, createTestTenant, type TestTenant } from '../../../../test/factories.ts';
import { buildTestApp, call, type TestApp } from '../../../../test/helper.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { ManualClock } from '../../../core/clock.ts';
import type { ServiceContext } from '../../../core/context.ts';
import { AppError } from '../../../core/http/errors.ts';
import { traceFrom } from '../../../core/http/request-id.ts';
import { auctionsIds } from '../../auctions/port.ts';
import { resumeRefund } from '../refunds/send-refund.ts';
import { SettlementWorker } from '../settlement.ts';
import { STEP_LEASE_MS } from '../steps/step-keys.ts';
import { createPaymentRecord } from '../verbs/create-payment.ts';
import { type FakeRequest, StripeFake } from './stripe-fake.ts';
import {
  act,
  createPayment,
  customerActor,
  type ErrorBody,
  get,
  type PaymentView,
  payThroughStripe,
  type RefundView,
  refund,
} from './support.ts';

const SECRET_KEY = 'sk_test_51StepsKeyForTheLocalStandIn';
const WEBHOOK_SECRET = 'whsec_stepsStandInSecret0123456789';

/**
 * Provider calls outside the payment's transaction (steps.ts), against the local Stripe: nothing waits on
 * a database connection while Stripe thinks, a second change of the payment meanwhile answers 409, a lost
 * answer or a dead instance is recovered by asking again with the same idempotency key (Stripe does it
 * once), and the PaymentIntent is only created for a payment we already recorded.
 */
describe('payments: provider calls outside the transaction, recovered with the same idempotency key', () => {
  const fake = new StripeFake();
  const clock = new ManualClock(Date.now());
  let t: TestApp;
  let tenant: TestTenant;
  let key: string;
  const workers: SettlementWorker[] = [];

  before(async () => {
    const url = await fake.start();
    t = await buildTestApp({ config: { stripeApiUrl: url }, clock });
    tenant = await createTestTenant(t);
    key = tenant.apiKey;
    await payThroughStripe(t, tenant, { secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET });
  });
  after(async () => {
    for (const worker of workers) await worker.stop();
    await t.close();
    await fake.stop();
  });

  const context = (): ServiceContext => ({
    ...t.app.services,
    log: t.app.log,
    tenantId: tenant.tenantId,
    principal: undefined,
    requestId: 'req_test',
    trace: traceFrom(undefined),
    origin: 'system',
  });
  const paths = {
    create: (r: FakeRequest) => r.method === 'POST' && r.path === '/v1/payment_intents',
    of: (payment: PaymentView, action: string) => (r: FakeRequest) =>
      r.path === `/v1/payment_intents/${payment.providerRef}/${action}`,
    refunds: (payment: PaymentView) => (r: FakeRequest) =>
      r.path === '/v1/refunds' && r.form.payment_intent === payment.providerRef,
  };
  const performed = (match: (r: FakeRequest) => boolean) => fake.performed.filter(match);
  const sent = (match: (r: FakeRequest) => boolean) => fake.requests.filter(match);
  const read = async (id: string) => (await get(t, key, `/v1/payments/${id}`)).json<PaymentView>();
  const authorized = async (amount = 4000) => {
    const payment = await createPayment(t, key, { amount, captureMethod: 'manual', seller: 'shop' });
    const res = await act(t, key, payment.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    assert.equal(res.json<PaymentView>().status, 'requires_capture', res.body);
    return res.json<PaymentView>();
  };
  const captureTransactions = async (paymentId: string) =>
    (await get(t, key, `/v1/ledger/transactions?paymentId=${paymentId}`))
      .json<{ data: { kind: string }[] }>()
      .data.filter((x) => x.kind === 'capture').length;
  const ledgerOk = async () => {
    const check = (await get(t, key, '/v1/ledger/check')).json<{ ok: boolean }>();
    assert.equal(check.ok, true, JSON.stringify(check));
  };
  /** The step left as an instance that died mid-call leaves it: `calling`, its lease still running. */
  const dieMidCall = async (paymentId: string) => {
    const { rowCount } = await t.db.query(
      `update payments set step_state = 'calling', step_until = $2 where id = $1 and step is not null`,
      [paymentId, new Date(clock.now() + STEP_LEASE_MS).toISOString()],
    );
    assert.equal(rowCount, 1);
  };

  test('while Stripe has not answered a capture, no transaction waits: the payment reads, others change, a second change answers 409', async () => {
    const payment = await authorized();
    const held = fake.hold(paths.of(payment, 'capture'));
    const first = act(t, key, payment.id, 'capture');
    await held.reached;
    // The embedded database has one connection: any statement here would wait behind a held transaction.
    assert.equal((await read(payment.id)).status, 'requires_capture');
    const other = await authorized(1200);
    assert.equal(other.status, 'requires_capture');
    for (const action of ['capture', 'cancel'] as const) {
      const second = await act(t, key, payment.id, action);
      assert.equal(second.statusCode, 409, second.body);
      assert.equal(second.json<ErrorBody>().error, 'conflict');
      assert.match(
        second.json<ErrorBody>().message,
        new RegExp(`payment ${payment.id} is requires_capture with a capture still running`),
      );
    }
    held.release();
    const done = await first;
    assert.equal(done.statusCode, 200, done.body);
    assert.equal(done.json<PaymentView>().status, 'succeeded');
    assert.equal(done.json<PaymentView>().amountCaptured, 4000);
    assert.equal(performed(paths.of(payment, 'capture')).length, 1);
    assert.equal(await captureTransactions(payment.id), 1);
    await ledgerOk();
  });

  test('a lost answer: 503, then the retry asks Stripe again with the same idempotency key, which captured once', async () => {
    const payment = await authorized();
    // Both the SDK's attempt and its own retry lose their answer, after Stripe carried the first out.
    fake.loseAnswers(paths.of(payment, 'capture'), 2);
    const lost = await act(t, key, payment.id, 'capture', { amountToCapture: 3000 });
    assert.equal(lost.statusCode, 503, lost.body);
    assert.equal(lost.json<ErrorBody>().error, 'service_unavailable');
    assert.equal(fake.intents.get(payment.providerRef ?? '')?.status, 'succeeded', 'Stripe did capture');
    assert.equal((await read(payment.id)).status, 'requires_capture', 'not applied: its answer was lost');
    assert.equal(await captureTransactions(payment.id), 0);

    const retried = await act(t, key, payment.id, 'capture', { amountToCapture: 3000 });
    assert.equal(retried.statusCode, 200, retried.body);
    assert.equal(retried.json<PaymentView>().status, 'succeeded');
    assert.equal(retried.json<PaymentView>().amountCaptured, 3000);
    const calls = sent(paths.of(payment, 'capture'));
    assert.equal(calls.length, 3, 'the SDK tried twice, the retry once');
    assert.equal(new Set(calls.map((c) => c.idempotencyKey)).size, 1, 'one idempotency key for the step');
    assert.match(calls[0]?.idempotencyKey ?? '', new RegExp(`^svc-capture-${payment.id}-\\d+$`));
    assert.equal(performed(paths.of(payment, 'capture')).length, 1, 'captured once at Stripe');
    assert.equal(await captureTransactions(payment.id), 1, 'posted once');
    await ledgerOk();
  });

  test('an instance that died mid-call holds the step until its lease runs out; then a retry resumes it, once', async () => {
    const payment = await authorized();
    fake.loseAnswers(paths.of(payment, 'capture'), 2);
    assert.equal((await act(t, key, payment.id, 'capture')).statusCode, 503);
    await dieMidCall(payment.id);
    const early = await act(t, key, payment.id, 'capture');
    assert.equal(early.statusCode, 409, early.body);
    assert.match(early.json<ErrorBody>().message, /is requires_capture with a capture still running/);
    clock.advance(STEP_LEASE_MS);
    const resumed = await act(t, key, payment.id, 'capture');
    assert.equal(resumed.statusCode, 200, resumed.body);
    assert.equal(resumed.json<PaymentView>().status, 'succeeded');
    assert.equal(performed(paths.of(payment, 'capture')).length, 1);
    assert.equal(await captureTransactions(payment.id), 1);
  });

  test('a confirm whose answer was lost is resumed by the next request of another kind first', async () => {
    const payment = await createPayment(t, key, { amount: 900 });
    fake.loseAnswers(paths.of(payment, 'confirm'), 2);
    const lost = await act(t, key, payment.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    assert.equal(lost.statusCode, 503, lost.body);
    // A cancel finds the confirmation's step: it is finished first (Stripe says succeeded), so the cancel
    // then answers 409 naming the status the payment really reached.
    const cancel = await act(t, key, payment.id, 'cancel');
    assert.equal(cancel.statusCode, 409, cancel.body);
    assert.match(cancel.json<ErrorBody>().message, new RegExp(`payment ${payment.id} is succeeded`));
    const now = await read(payment.id);
    assert.equal(now.status, 'succeeded');
    assert.equal(now.paymentMethod, 'pm_card_visa');
    assert.equal(performed(paths.of(payment, 'confirm')).length, 1);
    assert.equal(await captureTransactions(payment.id), 1);
  });

  test('a webhook that moves the payment on while a step runs wins: the step answers 409 naming the status', async () => {
    const payment = await authorized(2200);
    const held = fake.hold(paths.of(payment, 'cancel'));
    const cancel = act(t, key, payment.id, 'cancel');
    await held.reached;
    const intent = fake.settle(payment.providerRef ?? '', 'succeeded');
    const payload = JSON.stringify({
      id: `evt_steps_${payment.id}`,
      object: 'event',
      type: 'payment_intent.succeeded',
      data: { object: intent },
      livemode: false,
      created: 1,
    });
    const hook = await call(t.app, {
      method: 'POST',
      url: `/v1/payments/webhooks/stripe/${tenant.tenantId}`,
      headers: {
        'content-type': 'application/json',
        'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }),
      },
      payload,
    });
    assert.equal(hook.statusCode, 200, hook.body);
    assert.equal((await read(payment.id)).status, 'succeeded');
    held.release();
    const res = await cancel;
    assert.equal(res.statusCode, 409, res.body);
    assert.match(
      res.json<ErrorBody>().message,
      new RegExp(`payment ${payment.id} is succeeded: a provider report moved it there while its cancel ran`),
    );
    const now = await read(payment.id);
    assert.equal(now.status, 'succeeded');
    assert.equal(await captureTransactions(payment.id), 1);
    // The step is over: the payment takes its next change.
    assert.equal((await refund(t, key, payment.id, { amount: 100 })).statusCode, 201);
    await ledgerOk();
  });

  test('a refund whose answer was lost is settled by Stripe’s refund.updated, found by our id in its metadata', async () => {
    const paid = await authorized(3000);
    assert.equal((await act(t, key, paid.id, 'capture')).statusCode, 200);
    fake.refundStatus = 'pending';
    fake.loseAnswers(paths.refunds(paid), 2);
    const lost = await refund(t, key, paid.id, { amount: 1000 });
    fake.refundStatus = 'succeeded';
    assert.equal(lost.statusCode, 201, lost.body);
    const ours = lost.json<RefundView>();
    assert.equal(ours.providerRef, null);
    const stripeRefund = performed(paths.refunds(paid))[0];
    assert.equal(stripeRefund?.form['metadata[svc_refund_id]'], ours.id);
    const payload = JSON.stringify({
      id: `evt_lost_${ours.id}`,
      object: 'event',
      type: 'refund.updated',
      data: {
        object: {
          id: 're_fromStripe',
          object: 'refund',
          status: 'succeeded',
          amount: 1000,
          metadata: { svc_refund_id: ours.id },
          failure_reason: null,
        },
      },
      livemode: false,
      created: 1,
    });
    const hook = await call(t.app, {
      method: 'POST',
      url: `/v1/payments/webhooks/stripe/${tenant.tenantId}`,
      headers: {
        'content-type': 'application/json',
        'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }),
      },
      payload,
    });
    assert.equal(hook.json<{ result: string }>().result, 'applied', hook.body);
    const list = (await get(t, key, `/v1/payments/${paid.id}/refunds`)).json<{ data: RefundView[] }>().data;
    assert.deepEqual(
      list.map((r) => [r.id, r.status, r.providerRef]),
      [[ours.id, 'succeeded', 're_fromStripe']],
    );
    // Its outcome is known: recovery has nothing left to ask.
    clock.advance(STEP_LEASE_MS + 1);
    assert.equal(await resumeRefund(context(), ours.id), false);
    assert.equal(sent(paths.refunds(paid)).length, 2, 'only the SDK’s two attempts');
    await ledgerOk();
  });

  test('create: our row first; an answer lost after Stripe made the PaymentIntent keeps the payment, and its next change gets that same PaymentIntent', async () => {
    const before = fake.intents.size;
    fake.loseAnswers(paths.create, 2);
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
    assert.equal(fake.intents.size, before + 1, 'Stripe made one PaymentIntent');
    const intent = [...fake.intents.values()].find((i) => i.metadata.svc_payment_id === created.id);
    assert.ok(intent !== undefined, 'the PaymentIntent names our payment');

    const confirmed = await act(t, key, created.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    assert.equal(confirmed.json<PaymentView>().providerRef, intent.id);
    assert.equal(confirmed.json<PaymentView>().status, 'succeeded');
    assert.equal(fake.intents.size, before + 1, 'no second PaymentIntent');
    const creates = sent((r) => paths.create(r) && r.form['metadata[svc_payment_id]'] === created.id);
    assert.equal(creates.length, 3);
    assert.ok(creates.every((c) => c.idempotencyKey === `svc-create-${created.id}`));
  });

  test('create: a lost create that Stripe then refuses on resume answers the change with the refusal; the next one goes on', async () => {
    fake.loseAnswers(paths.create, 2);
    const created = await createPayment(t, key, { amount: 1300 });
    assert.equal(created.providerRef, null);
    fake.refuse(paths.create);
    const refused = await act(t, key, created.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    assert.equal(refused.statusCode, 409, refused.body);
    assert.match(refused.json<ErrorBody>().message, /Stripe refused the request/);
    assert.equal((await read(created.id)).providerRef, null, 'still ours, still without its PaymentIntent');
    const confirmed = await act(t, key, created.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    assert.equal(confirmed.json<PaymentView>().status, 'succeeded');
    const intent = [...fake.intents.values()].filter((i) => i.metadata.svc_payment_id === created.id);
    assert.equal(intent.length, 1);
    assert.equal(confirmed.json<PaymentView>().providerRef, intent[0]?.id);
  });

  test('create: a PaymentIntent Stripe refuses leaves nothing on either side', async () => {
    const before = fake.intents.size;
    fake.refuse(paths.create);
    const res = await call(t.app, {
      method: 'POST',
      url: '/v1/payments',
      headers: bearer(key),
      payload: { amount: 2500, currency: 'EUR', customer: customerActor('test:refused-create') },
    });
    assert.equal(res.statusCode, 409, res.body);
    assert.match(res.json<ErrorBody>().message, /Stripe refused the request/);
    assert.equal(fake.intents.size, before);
    const listed = (await get(t, key, '/v1/payments?customer=test:refused-create')).json<{
      data: PaymentView[];
    }>();
    assert.equal(listed.data.length, 0);
  });

  test('create: an insert that fails (the auction already has a payment) never reaches Stripe', async () => {
    const auctionId = auctionsIds.newId('auction', clock.now());
    const sale = { amount: 700, currency: 'EUR', customer: customerActor('test:winner'), auctionId };
    const first = await createPaymentRecord(context(), sale);
    assert.match(first.providerRef ?? '', /^pi_/);
    const creates = sent(paths.create).length;
    await assert.rejects(createPaymentRecord(context(), sale), (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, 'conflict');
      return true;
    });
    assert.equal(sent(paths.create).length, creates, 'no request to Stripe for the refused insert');
  });

  test('recovery: the worker finishes a create and a refund whose instance died, with the same keys, once', async () => {
    // A create whose instance died after Stripe made the PaymentIntent.
    fake.loseAnswers(paths.create, 2);
    const lostCreate = await createPayment(t, key, {
      amount: 1500,
      customer: customerActor('test:recovered'),
    });
    assert.equal(lostCreate.providerRef, null);
    await dieMidCall(lostCreate.id);
    // A refund whose answer was lost: recorded pending, its amount counted, its call unanswered.
    const paid = await authorized(5000);
    assert.equal((await act(t, key, paid.id, 'capture')).statusCode, 200);
    fake.loseAnswers(paths.refunds(paid), 2);
    const lostRefund = await refund(t, key, paid.id, { amount: 2000 });
    assert.equal(lostRefund.statusCode, 201, lostRefund.body);
    assert.equal(lostRefund.json<RefundView>().status, 'pending');
    assert.equal(lostRefund.json<RefundView>().providerRef, null);
    assert.equal((await read(paid.id)).amountRefunded, 2000, 'counted while pending');
    const tooMuch = await refund(t, key, paid.id, { amount: 3001 });
    assert.equal(tooMuch.statusCode, 400, 'the pending refund holds its amount');
    assert.equal(performed(paths.refunds(paid)).length, 1, 'Stripe refunded once');

    const worker = new SettlementWorker(
      { ...t.app.services, log: t.app.log },
      { tenantIds: new Set([tenant.tenantId]), maxPollMs: 1000 },
    );
    workers.push(worker);
    worker.start();
    // Nothing is taken over while the leases run.
    assert.equal((await read(lostCreate.id)).providerRef, null);
    clock.advance(STEP_LEASE_MS + 1000);
    const intentId = await eventually(
      'the create recovered',
      async () => (await read(lostCreate.id)).providerRef ?? undefined,
    );
    assert.equal(
      fake.intents.get(intentId)?.metadata.svc_payment_id,
      lostCreate.id,
      'the PaymentIntent Stripe made first',
    );
    const refunds = await eventually('the refund recovered', async () => {
      const list = (await get(t, key, `/v1/payments/${paid.id}/refunds`)).json<{ data: RefundView[] }>();
      return list.data.every((r) => r.status === 'succeeded') ? list.data : undefined;
    });
    assert.equal(refunds.length, 1);
    assert.match(refunds[0]?.providerRef ?? '', /^re_/);
    assert.equal(performed(paths.refunds(paid)).length, 1, 'still one refund at Stripe');
    const refundCalls = sent(paths.refunds(paid));
    assert.equal(refundCalls.length, 3);
    assert.ok(refundCalls.every((c) => c.idempotencyKey === `svc-refund-${refunds[0]?.id}`));
    await ledgerOk();
  });
});
