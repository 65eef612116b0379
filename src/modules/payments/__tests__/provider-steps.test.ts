import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { resumeRefund } from '../refunds/send-refund.ts';
import { STEP_LEASE_MS } from '../steps/step-keys.ts';
import { StepsSuite } from './steps-fixture.ts';
import { stripeEvent } from './stripe-suite.ts';
import type { ErrorBody, PaymentView, RefundView } from './support.ts';

/**
 * Provider calls outside the payment's transaction (steps.ts), against the local Stripe: nothing waits on
 * a database connection while Stripe thinks, a second change of the payment meanwhile answers 409, a lost
 * answer or a dead instance is recovered by asking again with the same idempotency key (Stripe does it
 * once), and the PaymentIntent is only created for a payment we already recorded.
 */
describe('payments: provider calls outside the transaction, recovered with the same idempotency key', () => {
  const s = new StepsSuite();

  test('while Stripe has not answered a capture, no transaction waits: the payment reads, others change, a second change answers 409', async () => {
    const payment = await s.held();
    const held = s.fake.hold(s.paths.of(payment, 'capture'));
    const first = s.act(payment.id, 'capture');
    await held.reached;
    // The embedded database has one connection: any statement here would wait behind a held transaction.
    assert.equal((await s.read(payment.id)).status, 'requires_capture');
    const other = await s.held(1200);
    assert.equal(other.status, 'requires_capture');
    for (const action of ['capture', 'cancel'] as const) {
      const second = await s.act(payment.id, action);
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
    assert.equal(s.performed(s.paths.of(payment, 'capture')).length, 1);
    assert.equal(await s.captureTransactions(payment.id), 1);
    await s.ledgerOk();
  });

  test('a lost answer: 503, then the retry asks Stripe again with the same idempotency key, which captured once', async () => {
    const payment = await s.held();
    // Both the SDK's attempt and its own retry lose their answer, after Stripe carried the first out.
    s.fake.loseAnswers(s.paths.of(payment, 'capture'), 2);
    const lost = await s.act(payment.id, 'capture', { amountToCapture: 3000 });
    assert.equal(lost.statusCode, 503, lost.body);
    assert.equal(lost.json<ErrorBody>().error, 'service_unavailable');
    assert.equal(s.fake.intents.get(payment.providerRef ?? '')?.status, 'succeeded', 'Stripe did capture');
    assert.equal((await s.read(payment.id)).status, 'requires_capture', 'not applied: its answer was lost');
    assert.equal(await s.captureTransactions(payment.id), 0);

    const retried = await s.act(payment.id, 'capture', { amountToCapture: 3000 });
    assert.equal(retried.statusCode, 200, retried.body);
    assert.equal(retried.json<PaymentView>().status, 'succeeded');
    assert.equal(retried.json<PaymentView>().amountCaptured, 3000);
    const calls = s.sent(s.paths.of(payment, 'capture'));
    assert.equal(calls.length, 3, 'the SDK tried twice, the retry once');
    assert.equal(new Set(calls.map((c) => c.idempotencyKey)).size, 1, 'one idempotency key for the step');
    assert.match(calls[0]?.idempotencyKey ?? '', new RegExp(`^svc-capture-${payment.id}-\\d+$`));
    assert.equal(s.performed(s.paths.of(payment, 'capture')).length, 1, 'captured once at Stripe');
    assert.equal(await s.captureTransactions(payment.id), 1, 'posted once');
    await s.ledgerOk();
  });

  test('an instance that died mid-call holds the step until its lease runs out; then a retry resumes it, once', async () => {
    const payment = await s.held();
    s.fake.loseAnswers(s.paths.of(payment, 'capture'), 2);
    assert.equal((await s.act(payment.id, 'capture')).statusCode, 503);
    await s.dieMidCall(payment.id);
    const early = await s.act(payment.id, 'capture');
    assert.equal(early.statusCode, 409, early.body);
    assert.match(early.json<ErrorBody>().message, /is requires_capture with a capture still running/);
    s.clock.advance(STEP_LEASE_MS);
    const resumed = await s.act(payment.id, 'capture');
    assert.equal(resumed.statusCode, 200, resumed.body);
    assert.equal(resumed.json<PaymentView>().status, 'succeeded');
    assert.equal(s.performed(s.paths.of(payment, 'capture')).length, 1);
    assert.equal(await s.captureTransactions(payment.id), 1);
  });

  test('a confirm whose answer was lost is resumed by the next request of another kind first', async () => {
    const payment = await s.createPayment({ amount: 900 });
    s.fake.loseAnswers(s.paths.of(payment, 'confirm'), 2);
    const lost = await s.act(payment.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    assert.equal(lost.statusCode, 503, lost.body);
    // A cancel finds the confirmation's step: it is finished first (Stripe says succeeded), so the cancel
    // then answers 409 naming the status the payment really reached.
    const cancel = await s.act(payment.id, 'cancel');
    assert.equal(cancel.statusCode, 409, cancel.body);
    assert.match(cancel.json<ErrorBody>().message, new RegExp(`payment ${payment.id} is succeeded`));
    const now = await s.read(payment.id);
    assert.equal(now.status, 'succeeded');
    assert.equal(now.paymentMethod, 'pm_card_visa');
    assert.equal(s.performed(s.paths.of(payment, 'confirm')).length, 1);
    assert.equal(await s.captureTransactions(payment.id), 1);
  });

  test('a webhook that moves the payment on while a step runs wins: the step answers 409 naming the status', async () => {
    const payment = await s.held(2200);
    const held = s.fake.hold(s.paths.of(payment, 'cancel'));
    const cancel = s.act(payment.id, 'cancel');
    await held.reached;
    const intent = s.fake.settle(payment.providerRef ?? '', 'succeeded');
    const hook = await s.deliver(stripeEvent(`evt_steps_${payment.id}`, 'payment_intent.succeeded', intent));
    assert.equal(hook.statusCode, 200, hook.body);
    assert.equal((await s.read(payment.id)).status, 'succeeded');
    held.release();
    const res = await cancel;
    assert.equal(res.statusCode, 409, res.body);
    assert.match(
      res.json<ErrorBody>().message,
      new RegExp(`payment ${payment.id} is succeeded: a provider report moved it there while its cancel ran`),
    );
    const now = await s.read(payment.id);
    assert.equal(now.status, 'succeeded');
    assert.equal(await s.captureTransactions(payment.id), 1);
    // The step is over: the payment takes its next change.
    assert.equal((await s.refund(payment.id, { amount: 100 })).statusCode, 201);
    await s.ledgerOk();
  });

  test('a refund whose answer was lost is settled by Stripe’s refund.updated, found by our id in its metadata', async () => {
    const paid = await s.held(3000);
    assert.equal((await s.act(paid.id, 'capture')).statusCode, 200);
    s.fake.refundStatus = 'pending';
    s.fake.loseAnswers(s.paths.refunds(paid), 2);
    const lost = await s.refund(paid.id, { amount: 1000 });
    s.fake.refundStatus = 'succeeded';
    assert.equal(lost.statusCode, 201, lost.body);
    const ours = lost.json<RefundView>();
    assert.equal(ours.providerRef, null);
    const stripeRefund = s.performed(s.paths.refunds(paid))[0];
    assert.equal(stripeRefund?.form['metadata[svc_refund_id]'], ours.id);
    const hook = await s.deliver(
      stripeEvent(`evt_lost_${ours.id}`, 'refund.updated', {
        id: 're_fromStripe',
        object: 'refund',
        status: 'succeeded',
        amount: 1000,
        metadata: { svc_refund_id: ours.id },
        failure_reason: null,
      }),
    );
    assert.equal(hook.json<{ result: string }>().result, 'applied', hook.body);
    const list = (await s.get(`/v1/payments/${paid.id}/refunds`)).json<{ data: RefundView[] }>().data;
    assert.deepEqual(
      list.map((r) => [r.id, r.status, r.providerRef]),
      [[ours.id, 'succeeded', 're_fromStripe']],
    );
    // Its outcome is known: recovery has nothing left to ask.
    s.clock.advance(STEP_LEASE_MS + 1);
    assert.equal(await resumeRefund(s.context(), ours.id), false);
    assert.equal(s.sent(s.paths.refunds(paid)).length, 2, 'only the SDK’s two attempts');
    await s.ledgerOk();
  });
});
