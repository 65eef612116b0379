import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestTenant } from '../../../../test/factories.ts';
import { stripeEvent as event, stripeSuite } from './stripe-suite.ts';
import type { ErrorBody, PaymentView, RefundView } from './support.ts';

const SECRET_KEY = 'sk_test_51FakeKeyForTheLocalStandIn';

describe('payments: the stripe provider, through the official SDK, against a local Stripe', () => {
  const s = stripeSuite({
    keys: { secretKey: SECRET_KEY, webhookSecret: 'whsec_localStandInSecret0123456789' },
  });

  const lastRequest = (path: string) => {
    const found = s.fake.requests.filter((r) => r.path === path).at(-1);
    assert.ok(found !== undefined, `no request to ${path}`);
    return found;
  };

  /** A payment processing at Stripe, and the event (`eventId`, `type`) Stripe sends once it is `status`. */
  const settling = async (
    eventId: string,
    type: string,
    status: 'succeeded' | 'requires_payment_method',
    amount = 10_000,
  ) => {
    const payment = await s.createPayment({ amount });
    const processing = await s.act(payment.id, 'confirm', { paymentMethod: 'pm_card_processing' });
    assert.equal(processing.json<PaymentView>().status, 'processing', processing.body);
    return { payment, body: event(eventId, type, s.fake.settle(payment.providerRef ?? '', status)) };
  };

  test('the secret keys are stored encrypted, never in plain text', async () => {
    const keys = s.storedKeys;
    assert.equal(keys.json<{ secretKeyLast4: string }>().secretKeyLast4, SECRET_KEY.slice(-4));
    assert.match(
      keys.json<{ webhookUrl: string }>().webhookUrl,
      new RegExp(`/v1/payments/webhooks/stripe/${s.tenant.tenantId}$`),
    );
    const { rows } = await s.t.db.query<{ secret_key_encrypted: string; webhook_secret_encrypted: string }>(
      'select secret_key_encrypted, webhook_secret_encrypted from payment_provider_accounts where tenant_id = $1',
      [s.tenant.tenantId],
    );
    assert.equal(rows.length, 1);
    assert.doesNotMatch(JSON.stringify(rows), /sk_test_|whsec_/);
  });

  test('create: a PaymentIntent at Stripe, in the shape Stripe documents, with an idempotency key', async () => {
    const payment = await s.createPayment({ amount: 2599, currency: 'EUR', description: 'Lot 9' });
    assert.equal(payment.provider, 'stripe');
    assert.equal(payment.livemode, false);
    assert.match(payment.providerRef ?? '', /^pi_/);
    const sent = lastRequest('/v1/payment_intents');
    assert.equal(sent.method, 'POST');
    assert.equal(sent.authorization, `Bearer ${SECRET_KEY}`);
    assert.match(sent.contentType ?? '', /^application\/x-www-form-urlencoded/);
    assert.ok(sent.stripeVersion !== undefined, 'the SDK pins its API version');
    assert.equal(sent.idempotencyKey, `svc-create-${payment.id}`);
    assert.deepEqual(sent.form, {
      amount: '2599',
      currency: 'eur',
      capture_method: 'automatic',
      description: 'Lot 9',
      'metadata[svc_payment_id]': payment.id,
    });
  });

  test('confirm: succeeded; declined with the decline code; requires_action then done', async () => {
    const paid = await s.createPayment({ amount: 1000 });
    const ok = await s.act(paid.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    assert.equal(ok.json<PaymentView>().status, 'succeeded', ok.body);
    assert.equal(ok.json<PaymentView>().amountCaptured, 1000);
    assert.deepEqual(lastRequest(`/v1/payment_intents/${paid.providerRef}/confirm`).form, {
      payment_method: 'pm_card_visa',
    });

    const declined = await s.createPayment();
    const no = await s.act(declined.id, 'confirm', { paymentMethod: 'pm_card_chargeDeclined' });
    assert.equal(no.statusCode, 200, no.body);
    assert.equal(no.json<PaymentView>().status, 'requires_payment_method');
    assert.equal(no.json<PaymentView>().lastError?.declineCode, 'generic_decline');

    const action = await s.createPayment();
    const first = await s.act(action.id, 'confirm', {
      paymentMethod: 'pm_card_authenticationRequired',
    });
    assert.equal(first.json<PaymentView>().status, 'requires_action');
    const second = await s.act(action.id, 'confirm');
    assert.equal(second.json<PaymentView>().status, 'succeeded');
  });

  test('capture in part, refund, cancel: each a request Stripe documents', async () => {
    const held = await s.createPayment({ amount: 5000, captureMethod: 'manual' });
    await s.act(held.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    const captured = await s.act(held.id, 'capture', { amountToCapture: 4000 });
    assert.equal(captured.json<PaymentView>().amountCaptured, 4000, captured.body);
    assert.deepEqual(lastRequest(`/v1/payment_intents/${held.providerRef}/capture`).form, {
      amount_to_capture: '4000',
    });
    const refunded = await s.refund(held.id, { amount: 1500, reason: 'requested_by_customer' });
    assert.equal(refunded.statusCode, 201, refunded.body);
    assert.equal(refunded.json<RefundView>().status, 'succeeded');
    assert.match(refunded.json<RefundView>().providerRef ?? '', /^re_/);
    const sent = lastRequest('/v1/refunds');
    assert.equal(sent.idempotencyKey, `svc-refund-${refunded.json<RefundView>().id}`);
    assert.equal(sent.form.payment_intent, held.providerRef);
    assert.equal(sent.form.amount, '1500');
    assert.equal(sent.form.reason, 'requested_by_customer');

    const open = await s.createPayment();
    const canceled = await s.act(open.id, 'cancel');
    assert.equal(canceled.json<PaymentView>().status, 'canceled');
    assert.equal(lastRequest(`/v1/payment_intents/${open.providerRef}/cancel`).method, 'POST');
  });

  test('webhook: a verified payment_intent.succeeded moves a processing payment; a replay changes nothing', async () => {
    const { payment, body } = await settling('evt_1', 'payment_intent.succeeded', 'succeeded', 3000);
    const res = await s.deliver(body);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { received: true, result: 'applied', paymentId: payment.id });
    const after = await s.read(payment.id);
    assert.equal(after.status, 'succeeded');
    assert.equal(after.amountCaptured, 3000);

    const replay = await s.deliver(body);
    assert.deepEqual(replay.json(), { received: true, result: 'duplicate', paymentId: payment.id });
    const succeeded = (await s.events<{ paymentId?: string }>()).filter(
      (e) => e.type === 'payment.succeeded' && e.data.paymentId === payment.id,
    );
    assert.equal(succeeded.length, 1, 'one payment.succeeded');
    const txs = await s.get(`/v1/ledger/transactions?paymentId=${payment.id}`);
    assert.equal(txs.json<{ data: unknown[] }>().data.length, 1, 'posted once');
  });

  test('a refund Stripe answers pending is settled by refund.updated: succeeded posts it, failed or canceled releases it', async () => {
    const payment = await s.createPayment({ amount: 4000, seller: 'shop' });
    await s.act(payment.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    s.fake.refundStatus = 'pending';
    const first = await s.refund(payment.id, { amount: 1000 });
    const second = await s.refund(payment.id, { amount: 2000 });
    const third = await s.refund(payment.id, { amount: 500 });
    s.fake.refundStatus = 'succeeded';
    assert.equal(first.json<RefundView>().status, 'pending', first.body);
    assert.equal((await s.read(payment.id)).amountRefunded, 3500);
    const beyond = await s.refund(payment.id, { amount: 501 });
    assert.equal(beyond.statusCode, 400, 'pending refunds count against the captured amount');
    const refundEvent = (eventId: string, res: typeof first, status: string) =>
      event(eventId, 'refund.updated', {
        id: res.json<RefundView>().providerRef,
        object: 'refund',
        status,
        amount: res.json<RefundView>().amount,
        failure_reason: status === 'failed' ? 'expired_or_canceled_card' : null,
      });
    const ok = refundEvent('evt_r1', first, 'succeeded');
    assert.equal((await s.deliver(ok)).json<{ result: string }>().result, 'applied');
    assert.equal((await s.deliver(ok)).json<{ result: string }>().result, 'duplicate');
    const failed = refundEvent('evt_r2', second, 'failed');
    assert.equal((await s.deliver(failed)).json<{ result: string }>().result, 'applied');
    const canceled = refundEvent('evt_r3', third, 'canceled');
    assert.equal((await s.deliver(canceled)).json<{ result: string }>().result, 'applied');
    const after = await s.read(payment.id);
    assert.equal(after.amountRefunded, 1000, 'the failed and the canceled refund released their amounts');
    const refunds = (await s.get(`/v1/payments/${payment.id}/refunds`)).json<{ data: RefundView[] }>().data;
    assert.deepEqual(
      refunds.map((r) => [r.amount, r.status, r.failureReason]),
      [
        [1000, 'succeeded', null],
        [2000, 'failed', 'expired_or_canceled_card'],
        [500, 'canceled', null],
      ],
    );
    const told = (await s.events<{ refundId?: string; refund?: { status: string } }>())
      .filter((e) => e.type.startsWith('refund.') && e.data.refundId === third.json<RefundView>().id)
      .map((e) => [e.type, e.data.refund?.status])
      .reverse();
    assert.deepEqual(told, [
      ['refund.created', 'pending'],
      ['refund.failed', 'canceled'],
    ]);
    const txs = (await s.get(`/v1/ledger/transactions?paymentId=${payment.id}`)).json<{
      data: { kind: string }[];
    }>().data;
    assert.deepEqual(txs.map((tx) => tx.kind).sort(), ['capture', 'refund']);
    await s.ledgerOk();
  });

  test('webhook: from requires_action a PaymentIntent goes to processing, requires_capture or back to requires_payment_method', async () => {
    const needingAction = async (captureMethod: 'automatic' | 'manual') => {
      const payment = await s.createPayment({ captureMethod });
      const res = await s.act(payment.id, 'confirm', {
        paymentMethod: 'pm_card_authenticationRequired',
      });
      assert.equal(res.json<PaymentView>().status, 'requires_action', res.body);
      return res.json<PaymentView>();
    };
    const moves: [PaymentView, Record<string, unknown>, string][] = [
      [await needingAction('automatic'), { status: 'processing' }, 'processing'],
      [await needingAction('manual'), { status: 'requires_capture' }, 'requires_capture'],
      [
        await needingAction('automatic'),
        {
          status: 'requires_payment_method',
          last_payment_error: {
            code: 'authentication_required',
            message: 'The customer did not authenticate.',
          },
        },
        'requires_payment_method',
      ],
    ];
    for (const [i, [payment, intent, expected]] of moves.entries()) {
      const body = event(`evt_action_${i}`, `payment_intent.${expected}`, {
        id: payment.providerRef,
        object: 'payment_intent',
        amount: payment.amount,
        amount_received: 0,
        ...intent,
      });
      const res = await s.deliver(body);
      assert.equal(res.json<{ result: string }>().result, 'applied', res.body);
      const now = await s.read(payment.id);
      assert.equal(now.status, expected);
      if (expected === 'requires_payment_method') {
        assert.equal(now.lastError?.code, 'authentication_required');
      }
    }
  });

  test('webhook: payment_intent.payment_failed sends it back with the error', async () => {
    const { payment, body } = await settling(
      'evt_2',
      'payment_intent.payment_failed',
      'requires_payment_method',
    );
    const res = await s.deliver(body);
    assert.equal(res.json<{ result: string }>().result, 'applied');
    const after = await s.read(payment.id);
    assert.equal(after.status, 'requires_payment_method');
    assert.equal(after.lastError?.declineCode, 'do_not_honor');
  });

  test('webhook: a forged, stale or missing Stripe-Signature is refused, and nothing changes', async () => {
    const { payment, body } = await settling('evt_3', 'payment_intent.succeeded', 'succeeded');
    const forged = await s.webhook(body, s.signed(body, { secret: 'whsec_notTheTenantsSecret' }));
    const stale = await s.webhook(body, s.signed(body, { timestamp: Math.floor(Date.now() / 1000) - 600 }));
    const missing = await s.webhook(body, undefined);
    const tampered = await s.webhook(body.replace('"amount":', '"amount":1'), s.signed(body));
    for (const res of [forged, stale, missing, tampered]) {
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json<ErrorBody>().details?.[0]?.code, 'bad_signature');
    }
    assert.equal((await s.read(payment.id)).status, 'processing');
    const stranger = await createTestTenant(s.t);
    const elsewhere = await s.webhook(body, s.signed(body), stranger.tenantId);
    assert.equal(elsewhere.statusCode, 404, 'a tenant without Stripe keys has no webhook');
    // The same event, properly signed, still applies: the refusals recorded nothing.
    const good = await s.deliver(body);
    assert.equal(good.json<{ result: string }>().result, 'applied');
  });
});
