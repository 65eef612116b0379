import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Stripe from 'stripe';
import { bearer, createTestTenant, type TestTenant } from '../../../../test/factories.ts';
import { call, type TestApp } from '../../../../test/helper.ts';
import { StripeFake } from './stripe-fake.ts';
import {
  act,
  createPayment,
  type ErrorBody,
  get,
  type PaymentView,
  payThroughStripe,
  type RefundView,
  refund,
  tenantApp,
} from './support.ts';

const SECRET_KEY = 'sk_test_51FakeKeyForTheLocalStandIn';
const WEBHOOK_SECRET = 'whsec_localStandInSecret0123456789';

describe('payments: the stripe provider, through the official SDK, against a local Stripe', () => {
  const fake = new StripeFake();
  let t: TestApp;
  let tenant: TestTenant;
  let key: string;

  before(async () => {
    const url = await fake.start();
    ({ t, tenant, key } = await tenantApp({ config: { stripeApiUrl: url } }));
    const keys = await payThroughStripe(t, tenant, { secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET });
    assert.equal(keys.json<{ secretKeyLast4: string }>().secretKeyLast4, SECRET_KEY.slice(-4));
    assert.match(
      keys.json<{ webhookUrl: string }>().webhookUrl,
      new RegExp(`/v1/payments/webhooks/stripe/${tenant.tenantId}$`),
    );
  });
  after(async () => {
    await t.close();
    await fake.stop();
  });

  const lastRequest = (path: string) => {
    const found = fake.requests.filter((r) => r.path === path).at(-1);
    assert.ok(found !== undefined, `no request to ${path}`);
    return found;
  };

  const webhook = (payload: string, signature: string | undefined, tenantId = tenant.tenantId) =>
    call(t.app, {
      method: 'POST',
      url: `/v1/payments/webhooks/stripe/${tenantId}`,
      headers: {
        'content-type': 'application/json',
        ...(signature === undefined ? {} : { 'stripe-signature': signature }),
      },
      payload,
    });
  const signed = (payload: string, options: { secret?: string; timestamp?: number } = {}) =>
    Stripe.webhooks.generateTestHeaderString({
      payload,
      secret: options.secret ?? WEBHOOK_SECRET,
      ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
    });
  const event = (eventId: string, type: string, object: unknown) =>
    JSON.stringify({ id: eventId, object: 'event', type, data: { object }, livemode: false, created: 1 });

  test('the secret keys are stored encrypted, never in plain text', async () => {
    const { rows } = await t.db.query<{ secret_key_encrypted: string; webhook_secret_encrypted: string }>(
      'select secret_key_encrypted, webhook_secret_encrypted from payment_provider_accounts where tenant_id = $1',
      [tenant.tenantId],
    );
    assert.equal(rows.length, 1);
    assert.doesNotMatch(JSON.stringify(rows), /sk_test_|whsec_/);
  });

  test('create: a PaymentIntent at Stripe, in the shape Stripe documents, with an idempotency key', async () => {
    const payment = await createPayment(t, key, { amount: 2599, currency: 'EUR', description: 'Lot 9' });
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
    const paid = await createPayment(t, key, { amount: 1000 });
    const ok = await act(t, key, paid.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    assert.equal(ok.json<PaymentView>().status, 'succeeded', ok.body);
    assert.equal(ok.json<PaymentView>().amountCaptured, 1000);
    assert.deepEqual(lastRequest(`/v1/payment_intents/${paid.providerRef}/confirm`).form, {
      payment_method: 'pm_card_visa',
    });

    const declined = await createPayment(t, key);
    const no = await act(t, key, declined.id, 'confirm', { paymentMethod: 'pm_card_chargeDeclined' });
    assert.equal(no.statusCode, 200, no.body);
    assert.equal(no.json<PaymentView>().status, 'requires_payment_method');
    assert.equal(no.json<PaymentView>().lastError?.declineCode, 'generic_decline');

    const action = await createPayment(t, key);
    const first = await act(t, key, action.id, 'confirm', {
      paymentMethod: 'pm_card_authenticationRequired',
    });
    assert.equal(first.json<PaymentView>().status, 'requires_action');
    const second = await act(t, key, action.id, 'confirm');
    assert.equal(second.json<PaymentView>().status, 'succeeded');
  });

  test('capture in part, refund, cancel: each a request Stripe documents', async () => {
    const held = await createPayment(t, key, { amount: 5000, captureMethod: 'manual' });
    await act(t, key, held.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    const captured = await act(t, key, held.id, 'capture', { amountToCapture: 4000 });
    assert.equal(captured.json<PaymentView>().amountCaptured, 4000, captured.body);
    assert.deepEqual(lastRequest(`/v1/payment_intents/${held.providerRef}/capture`).form, {
      amount_to_capture: '4000',
    });
    const refunded = await refund(t, key, held.id, { amount: 1500, reason: 'requested_by_customer' });
    assert.equal(refunded.statusCode, 201, refunded.body);
    assert.equal(refunded.json<RefundView>().status, 'succeeded');
    assert.match(refunded.json<RefundView>().providerRef ?? '', /^re_/);
    const sent = lastRequest('/v1/refunds');
    assert.equal(sent.idempotencyKey, `svc-refund-${refunded.json<RefundView>().id}`);
    assert.equal(sent.form.payment_intent, held.providerRef);
    assert.equal(sent.form.amount, '1500');
    assert.equal(sent.form.reason, 'requested_by_customer');

    const open = await createPayment(t, key);
    const canceled = await act(t, key, open.id, 'cancel');
    assert.equal(canceled.json<PaymentView>().status, 'canceled');
    assert.equal(lastRequest(`/v1/payment_intents/${open.providerRef}/cancel`).method, 'POST');
  });

  test('webhook: a verified payment_intent.succeeded moves a processing payment; a replay changes nothing', async () => {
    const payment = await createPayment(t, key, { amount: 3000 });
    const processing = await act(t, key, payment.id, 'confirm', { paymentMethod: 'pm_card_processing' });
    assert.equal(processing.json<PaymentView>().status, 'processing');
    const body = event(
      'evt_1',
      'payment_intent.succeeded',
      fake.settle(payment.providerRef ?? '', 'succeeded'),
    );
    const res = await webhook(body, signed(body));
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { received: true, result: 'applied', paymentId: payment.id });
    const after = (await get(t, key, `/v1/payments/${payment.id}`)).json<PaymentView>();
    assert.equal(after.status, 'succeeded');
    assert.equal(after.amountCaptured, 3000);

    const replay = await webhook(body, signed(body));
    assert.deepEqual(replay.json(), { received: true, result: 'duplicate', paymentId: payment.id });
    const events = await call(t.app, { method: 'GET', url: '/v1/events?limit=100', headers: bearer(key) });
    const succeeded = events
      .json<{ data: { type: string; data: { paymentId?: string } }[] }>()
      .data.filter((e) => e.type === 'payment.succeeded' && e.data.paymentId === payment.id);
    assert.equal(succeeded.length, 1, 'one payment.succeeded');
    const txs = await get(t, key, `/v1/ledger/transactions?paymentId=${payment.id}`);
    assert.equal(txs.json<{ data: unknown[] }>().data.length, 1, 'posted once');
  });

  test('a refund Stripe answers pending is settled by refund.updated: succeeded posts it, failed or canceled releases it', async () => {
    const payment = await createPayment(t, key, { amount: 4000, seller: 'shop' });
    await act(t, key, payment.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    fake.refundStatus = 'pending';
    const first = await refund(t, key, payment.id, { amount: 1000 });
    const second = await refund(t, key, payment.id, { amount: 2000 });
    const third = await refund(t, key, payment.id, { amount: 500 });
    fake.refundStatus = 'succeeded';
    assert.equal(first.json<RefundView>().status, 'pending', first.body);
    assert.equal((await get(t, key, `/v1/payments/${payment.id}`)).json<PaymentView>().amountRefunded, 3500);
    const beyond = await refund(t, key, payment.id, { amount: 501 });
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
    assert.equal((await webhook(ok, signed(ok))).json<{ result: string }>().result, 'applied');
    assert.equal((await webhook(ok, signed(ok))).json<{ result: string }>().result, 'duplicate');
    const failed = refundEvent('evt_r2', second, 'failed');
    assert.equal((await webhook(failed, signed(failed))).json<{ result: string }>().result, 'applied');
    const canceled = refundEvent('evt_r3', third, 'canceled');
    assert.equal((await webhook(canceled, signed(canceled))).json<{ result: string }>().result, 'applied');
    const after = (await get(t, key, `/v1/payments/${payment.id}`)).json<PaymentView>();
    assert.equal(after.amountRefunded, 1000, 'the failed and the canceled refund released their amounts');
    const refunds = (await get(t, key, `/v1/payments/${payment.id}/refunds`)).json<{ data: RefundView[] }>()
      .data;
    assert.deepEqual(
      refunds.map((r) => [r.amount, r.status, r.failureReason]),
      [
        [1000, 'succeeded', null],
        [2000, 'failed', 'expired_or_canceled_card'],
        [500, 'canceled', null],
      ],
    );
    const told = (await call(t.app, { method: 'GET', url: '/v1/events?limit=100', headers: bearer(key) }))
      .json<{ data: { type: string; data: { refundId?: string; refund?: { status: string } } }[] }>()
      .data.filter((e) => e.type.startsWith('refund.') && e.data.refundId === third.json<RefundView>().id)
      .map((e) => [e.type, e.data.refund?.status])
      .reverse();
    assert.deepEqual(told, [
      ['refund.created', 'pending'],
      ['refund.failed', 'canceled'],
    ]);
    const txs = (await get(t, key, `/v1/ledger/transactions?paymentId=${payment.id}`)).json<{
      data: { kind: string }[];
    }>().data;
    assert.deepEqual(txs.map((tx) => tx.kind).sort(), ['capture', 'refund']);
    const check = await get(t, key, '/v1/ledger/check');
    assert.equal(check.json<{ ok: boolean }>().ok, true, check.body);
  });

  test('webhook: from requires_action a PaymentIntent goes to processing, requires_capture or back to requires_payment_method', async () => {
    const needingAction = async (captureMethod: 'automatic' | 'manual') => {
      const payment = await createPayment(t, key, { captureMethod });
      const res = await act(t, key, payment.id, 'confirm', {
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
      const res = await webhook(body, signed(body));
      assert.equal(res.json<{ result: string }>().result, 'applied', res.body);
      const now = (await get(t, key, `/v1/payments/${payment.id}`)).json<PaymentView>();
      assert.equal(now.status, expected);
      if (expected === 'requires_payment_method') {
        assert.equal(now.lastError?.code, 'authentication_required');
      }
    }
  });

  test('webhook: payment_intent.payment_failed sends it back with the error', async () => {
    const payment = await createPayment(t, key);
    await act(t, key, payment.id, 'confirm', { paymentMethod: 'pm_card_processing' });
    const body = event(
      'evt_2',
      'payment_intent.payment_failed',
      fake.settle(payment.providerRef ?? '', 'requires_payment_method'),
    );
    const res = await webhook(body, signed(body));
    assert.equal(res.json<{ result: string }>().result, 'applied');
    const after = (await get(t, key, `/v1/payments/${payment.id}`)).json<PaymentView>();
    assert.equal(after.status, 'requires_payment_method');
    assert.equal(after.lastError?.declineCode, 'do_not_honor');
  });

  test('webhook: a forged, stale or missing Stripe-Signature is refused, and nothing changes', async () => {
    const payment = await createPayment(t, key);
    await act(t, key, payment.id, 'confirm', { paymentMethod: 'pm_card_processing' });
    const body = event(
      'evt_3',
      'payment_intent.succeeded',
      fake.settle(payment.providerRef ?? '', 'succeeded'),
    );
    const forged = await webhook(body, signed(body, { secret: 'whsec_notTheTenantsSecret' }));
    const stale = await webhook(body, signed(body, { timestamp: Math.floor(Date.now() / 1000) - 600 }));
    const missing = await webhook(body, undefined);
    const tampered = await webhook(body.replace('"amount":', '"amount":1'), signed(body));
    for (const res of [forged, stale, missing, tampered]) {
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json<ErrorBody>().details?.[0]?.code, 'bad_signature');
    }
    assert.equal((await get(t, key, `/v1/payments/${payment.id}`)).json<PaymentView>().status, 'processing');
    const stranger = await createTestTenant(t);
    const elsewhere = await webhook(body, signed(body), stranger.tenantId);
    assert.equal(elsewhere.statusCode, 404, 'a tenant without Stripe keys has no webhook');
    // The same event, properly signed, still applies: the refusals recorded nothing.
    const good = await webhook(body, signed(body));
    assert.equal(good.json<{ result: string }>().result, 'applied');
  });
});
