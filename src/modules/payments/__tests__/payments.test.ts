import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PAYMENT_STATUSES } from '../schema/common.ts';
import { OPERATIONS, type PaymentStatus, TRANSITIONS } from '../states.ts';
import { customerActor, type ErrorBody, type PaymentView, paymentsSuite } from './support.ts';

describe('payments: intents, the state machine, the test provider', () => {
  const s = paymentsSuite();

  test('create: requires_payment_method, test mode, integer amounts, payment.created', async () => {
    const payment = await s.createPayment({
      amount: 1234,
      currency: 'USD',
      customer: customerActor('test:alice'),
      description: 'Lot 7',
      metadata: { order: 'o-1' },
    });
    assert.match(payment.id, /^pay_[0-9a-z]{26}$/);
    assert.equal(payment.object, 'payment');
    assert.equal(payment.status, 'requires_payment_method');
    assert.equal(payment.amount, 1234);
    assert.equal(payment.currency, 'USD');
    assert.equal(payment.captureMethod, 'automatic');
    assert.deepEqual(payment.customer, { type: 'end_user', id: 'test:alice', identityProvider: 'test' });
    assert.equal(payment.provider, 'test');
    assert.equal(payment.livemode, false);
    assert.equal(payment.amountCaptured, 0);
    assert.equal(payment.amountRefunded, 0);
    assert.equal(payment.lastError, null);
    const got = await s.get(`/v1/payments/${payment.id}`);
    assert.deepEqual(got.json(), payment);
    assert.deepEqual(await s.eventsOf(payment.id), ['payment.created']);
  });

  test('create with a payment method: requires_confirmation', async () => {
    const payment = await s.createPayment({ paymentMethod: 'pm_card_visa' });
    assert.equal(payment.status, 'requires_confirmation');
    assert.equal(payment.paymentMethod, 'pm_card_visa');
  });

  test('bad input: 400 with the field named', async () => {
    for (const [payload, field] of [
      [{ amount: 10.5, currency: 'EUR' }, '/body/amount'],
      [{ amount: 0, currency: 'EUR' }, '/body/amount'],
      [{ amount: 100, currency: 'eur' }, '/body/currency'],
      [{ amount: 100 }, '/body/currency'],
      [{ amount: 100, currency: 'EUR', captureMethod: 'later' }, '/body/captureMethod'],
      [{ amount: 100, currency: 'EUR', extra: 1 }, '/body/extra'],
    ] as const) {
      const res = await s.post('/v1/payments', payload);
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      const body = res.json<ErrorBody>();
      assert.equal(body.error, 'invalid_request');
      assert.ok(
        body.details?.some((d) => d.field.startsWith(field)),
        `${field}: ${res.body}`,
      );
    }
    const unknownPm = await s.createPayment();
    const res = await s.act(unknownPm.id, 'confirm', { paymentMethod: 'pm_card_bogus' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json<ErrorBody>().details?.[0]?.code, 'unknown_payment_method');
    const missing = await s.act(unknownPm.id, 'confirm', {});
    assert.equal(missing.statusCode, 400);
    assert.match(missing.json<ErrorBody>().message, /payment method/);
    const unknown = await s.get('/v1/payments/pay_00000000000000000000000000');
    assert.equal(unknown.statusCode, 404);
  });

  test('pm_card_visa, automatic: succeeded, captured in full, payment.succeeded', async () => {
    const payment = await s.paidPayment({ amount: 5000 });
    assert.equal(payment.status, 'succeeded');
    assert.equal(payment.amountCaptured, 5000);
    assert.equal(payment.amountCapturable, 0);
    assert.deepEqual(await s.eventsOf(payment.id), ['payment.created', 'payment.succeeded']);
  });

  test('pm_card_visa, manual: requires_capture, then a partial capture releases the rest', async () => {
    const payment = await s.paidPayment({ amount: 5000, captureMethod: 'manual' });
    assert.equal(payment.status, 'requires_capture');
    assert.equal(payment.amountCapturable, 5000);
    const tooMuch = await s.act(payment.id, 'capture', { amountToCapture: 5001 });
    assert.equal(tooMuch.statusCode, 400);
    assert.equal(tooMuch.json<ErrorBody>().details?.[0]?.code, 'amount_too_large');
    const captured = await s.act(payment.id, 'capture', { amountToCapture: 3000 });
    assert.equal(captured.statusCode, 200, captured.body);
    const body = captured.json<PaymentView>();
    assert.equal(body.status, 'succeeded');
    assert.equal(body.amountCaptured, 3000);
    assert.equal(body.amountCapturable, 0);
    assert.deepEqual(await s.eventsOf(payment.id), [
      'payment.created',
      'payment.amount_capturable_updated',
      'payment.succeeded',
    ]);
  });

  test('pm_card_chargeDeclined: back to requires_payment_method with the decline code; then pay with another card', async () => {
    const payment = await s.createPayment();
    const declined = await s.act(payment.id, 'confirm', { paymentMethod: 'pm_card_chargeDeclined' });
    assert.equal(declined.statusCode, 200, declined.body);
    const body = declined.json<PaymentView>();
    assert.equal(body.status, 'requires_payment_method');
    assert.deepEqual(body.lastError, {
      code: 'card_declined',
      declineCode: 'generic_decline',
      message: 'Your card was declined.',
    });
    const funds = await s.act(payment.id, 'confirm', {
      paymentMethod: 'pm_card_chargeDeclinedInsufficientFunds',
    });
    assert.equal(funds.json<PaymentView>().lastError?.declineCode, 'insufficient_funds');
    const paid = await s.act(payment.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    assert.equal(paid.json<PaymentView>().status, 'succeeded');
    assert.equal(paid.json<PaymentView>().lastError, null);
    assert.deepEqual(await s.eventsOf(payment.id), [
      'payment.created',
      'payment.failed',
      'payment.failed',
      'payment.succeeded',
    ]);
  });

  test('pm_card_authenticationRequired: requires_action, confirm again completes it', async () => {
    const payment = await s.createPayment({ paymentMethod: 'pm_card_authenticationRequired' });
    const first = await s.act(payment.id, 'confirm');
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json<PaymentView>().status, 'requires_action');
    assert.deepEqual(first.json<PaymentView>().nextAction, { type: 'use_stripe_sdk' });
    const second = await s.act(payment.id, 'confirm');
    assert.equal(second.json<PaymentView>().status, 'succeeded');
    assert.equal(second.json<PaymentView>().nextAction, null);
    assert.deepEqual(await s.eventsOf(payment.id), [
      'payment.created',
      'payment.requires_action',
      'payment.succeeded',
    ]);
  });

  test('pm_card_processing: stays processing until the simulated provider webhook', async () => {
    const ok = await s.createPayment({ paymentMethod: 'pm_card_processing', captureMethod: 'manual' });
    const processing = await s.act(ok.id, 'confirm');
    assert.equal(processing.json<PaymentView>().status, 'processing');
    assert.equal((await s.get(`/v1/payments/${ok.id}`)).json<PaymentView>().status, 'processing');
    const done = await s.act(ok.id, 'simulate', { outcome: 'succeeded' });
    assert.equal(done.statusCode, 200, done.body);
    assert.equal(done.json<PaymentView>().status, 'requires_capture');
    const again = await s.act(ok.id, 'simulate', { outcome: 'succeeded' });
    assert.equal(again.statusCode, 409);
    assert.match(again.json<ErrorBody>().message, /requires_capture/);

    const failing = await s.createPayment({ paymentMethod: 'pm_card_processing' });
    await s.act(failing.id, 'confirm');
    const failed = await s.act(failing.id, 'simulate', { outcome: 'failed' });
    assert.equal(failed.json<PaymentView>().status, 'requires_payment_method');
    assert.equal(failed.json<PaymentView>().lastError?.code, 'payment_failed');
    assert.deepEqual(await s.eventsOf(failing.id), [
      'payment.created',
      'payment.processing',
      'payment.failed',
    ]);
  });

  test('cancel from each non-terminal status; nothing from the terminal ones', async () => {
    const make: Record<string, () => Promise<PaymentView>> = {
      requires_payment_method: () => s.createPayment(),
      requires_confirmation: () => s.createPayment({ paymentMethod: 'pm_card_visa' }),
      requires_action: async () => {
        const p = await s.createPayment({ paymentMethod: 'pm_card_authenticationRequired' });
        return (await s.act(p.id, 'confirm')).json<PaymentView>();
      },
      processing: async () => {
        const p = await s.createPayment({ paymentMethod: 'pm_card_processing' });
        return (await s.act(p.id, 'confirm')).json<PaymentView>();
      },
      requires_capture: () => s.paidPayment({ captureMethod: 'manual' }),
      succeeded: () => s.paidPayment(),
      canceled: async () => {
        const p = await s.createPayment();
        return (await s.act(p.id, 'cancel')).json<PaymentView>();
      },
    };
    for (const status of PAYMENT_STATUSES) {
      const payment = await make[status]?.();
      assert.ok(payment !== undefined);
      assert.equal(payment.status, status, 'the setup reaches the status');
      for (const operation of ['confirm', 'capture', 'cancel'] as const) {
        const allowed = (OPERATIONS[operation] as readonly PaymentStatus[]).includes(status);
        if (allowed) continue;
        const res = await s.act(
          payment.id,
          operation,
          operation === 'confirm' ? { paymentMethod: 'pm_card_visa' } : {},
        );
        assert.equal(res.statusCode, 409, `${operation} from ${status}: ${res.body}`);
        const body = res.json<ErrorBody>();
        assert.equal(body.error, 'conflict');
        assert.match(body.message, new RegExp(`is ${status};`));
      }
      if ((OPERATIONS.cancel as readonly PaymentStatus[]).includes(status)) {
        const canceled = await s.act(payment.id, 'cancel', { reason: 'requested_by_customer' });
        assert.equal(canceled.statusCode, 200, `cancel from ${status}: ${canceled.body}`);
        assert.equal(canceled.json<PaymentView>().status, 'canceled');
        assert.equal(canceled.json<PaymentView>().amountCapturable, 0);
      }
      if (status === 'succeeded' || status === 'canceled') assert.deepEqual(TRANSITIONS[status], []);
    }
  });

  test('list: newest first, filters, cursor', async () => {
    const customer = `test:lister-${Date.now()}`;
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await s.createPayment({ customer: customerActor(customer) })).id);
    await s.act(made[0] ?? '', 'confirm', { paymentMethod: 'pm_card_visa' });
    const page1 = await s.get(`/v1/payments?customer=${encodeURIComponent(customer)}&limit=3`);
    assert.equal(page1.statusCode, 200, page1.body);
    const first = page1.json<{ data: PaymentView[]; nextCursor: string | null }>();
    assert.deepEqual(
      first.data.map((p) => p.id),
      made.slice(2).reverse(),
    );
    assert.ok(first.nextCursor !== null);
    const page2 = await s.get(
      `/v1/payments?customer=${encodeURIComponent(customer)}&limit=3&cursor=${encodeURIComponent(first.nextCursor)}`,
    );
    assert.deepEqual(
      page2.json<{ data: PaymentView[] }>().data.map((p) => p.id),
      made.slice(0, 2).reverse(),
    );
    const succeeded = await s.get(`/v1/payments?customer=${encodeURIComponent(customer)}&status=succeeded`);
    assert.deepEqual(
      succeeded.json<{ data: PaymentView[] }>().data.map((p) => p.id),
      [made[0]],
    );
  });
});
