import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { bearer, createTestTenant, type TestTenant } from '../../../../test/factories.ts';
import { buildTestApp, call, type Response, type TestApp } from '../../../../test/helper.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { ManualClock } from '../../../core/clock.ts';
import { type FakeRequest, StripeFake } from './stripe-fake.ts';
import { payThroughStripe } from './stripe-suite.ts';
import type { ErrorBody, PaymentView, RefundView } from './support.ts';
import { customerActor, paymentsClient } from './support.ts';

const SECRET_KEY = 'sk_test_51IdemCrashStandIn';
const WEBHOOK_SECRET = 'whsec_idemCrashSecret0123456789';
/** What the retry waited: past the key's lease (5 min) and a provider step's (2 min). */
const AFTER_310_S = 310_000;

/**
 * An instance that dies after its handler ran and before its answer (and the key's stored response) left
 * it, deterministically: instance A's answers never leave (`preSerialization` waits for ever, as a process
 * killed at that point would), while instance B, on the same database and clock, takes the retries. The key
 * stays `running` with A's lease; B answers 409 until the lease runs out, then must find what A made under
 * the key instead of making it again.
 */
describe('Idempotency-Key through a crash between the effect and the stored response', () => {
  const clock = new ManualClock(Date.now());
  const fake = new StripeFake();
  let dying: TestApp;
  let survivor: TestApp;
  let plain: TestTenant;
  let stripe: TestTenant;
  let killA: (error: Error) => void = () => {};
  const killed = new Promise<never>((_, reject) => {
    killA = reject;
  });
  killed.catch(() => {});
  /** A's requests, never answered while the test runs. */
  const lost: Promise<Response>[] = [];

  before(async () => {
    const url = await fake.start();
    dying = await buildTestApp({
      config: { stripeApiUrl: url },
      clock,
      extend: (app: FastifyInstance) => {
        app.addHook('preSerialization', async () => killed);
      },
    });
    survivor = await buildTestApp({ config: { stripeApiUrl: url }, clock, db: dying.db });
    plain = await createTestTenant(survivor);
    stripe = await createTestTenant(survivor);
    await payThroughStripe(survivor, stripe, { secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET });
  });
  after(async () => {
    killA(new Error('instance A is gone'));
    await Promise.allSettled(lost);
    await survivor.close();
    await dying.close();
    await fake.stop();
  });

  const send = (app: FastifyInstance, apiKey: string, url: string, body: object, key: string) =>
    call(app, {
      method: 'POST',
      url,
      headers: { ...bearer(apiKey), 'idempotency-key': key },
      payload: body,
    });
  /** A's request, left hanging: it runs, its answer never comes. */
  const sendToDying = (apiKey: string, url: string, body: object, key: string) => {
    lost.push(send(dying.app, apiKey, url, body, key));
  };
  const paymentsOf = async (tenantId: string, order: string) =>
    (
      await dying.db.query<{ id: string; provider_ref: string | null }>(
        `select id, provider_ref from payments where tenant_id = $1 and metadata->>'order' = $2 order by seq`,
        [tenantId, order],
      )
    ).rows;
  const refundsOf = async (tenantId: string, paymentId: string) =>
    (
      await dying.db.query<{ id: string; status: string }>(
        'select id, status from payment_refunds where tenant_id = $1 and payment_id = $2 order by seq',
        [tenantId, paymentId],
      )
    ).rows;
  /** The retry on B while A's claim holds, then after 310 s. */
  const retryTwice = async (apiKey: string, url: string, body: object, key: string) => {
    const during = await send(survivor.app, apiKey, url, body, key);
    assert.equal(during.statusCode, 409, during.body);
    assert.match(during.json<ErrorBody>().message, /Idempotency-Key is still running/);
    clock.advance(AFTER_310_S);
    return send(survivor.app, apiKey, url, body, key);
  };

  test('a payment created before the crash is answered to the retry after 310 s, not made again', async () => {
    const body = {
      amount: 2500,
      currency: 'EUR',
      customer: customerActor('test:crash'),
      metadata: { order: 'crash-1' },
    };
    sendToDying(plain.apiKey, '/v1/payments', body, 'crash-1');
    const made = await eventually('A to create the payment', async () => {
      const rows = await paymentsOf(plain.tenantId, 'crash-1');
      return rows[0]?.provider_ref === null ? undefined : rows[0];
    });

    const retried = await retryTwice(plain.apiKey, '/v1/payments', body, 'crash-1');
    assert.equal(retried.statusCode, 201, retried.body);
    assert.equal(retried.json<PaymentView>().id, made.id, 'the payment made under the key');
    assert.equal(retried.headers['idempotent-replayed'], 'true');
    assert.equal((await paymentsOf(plain.tenantId, 'crash-1')).length, 1, 'one payment for the key');
    const replay = await send(survivor.app, plain.apiKey, '/v1/payments', body, 'crash-1');
    assert.equal(replay.body, retried.body, 'and that answer is the key’s from now on');
  });

  test('the same key with another body after the crash: 409 idempotency_conflict, nothing made', async () => {
    const body = { amount: 900, currency: 'EUR', metadata: { order: 'crash-2' } };
    sendToDying(plain.apiKey, '/v1/payments', body, 'crash-2');
    await eventually('A to create the payment', async () => {
      const rows = await paymentsOf(plain.tenantId, 'crash-2');
      return rows[0]?.provider_ref === null ? undefined : rows[0];
    });
    clock.advance(AFTER_310_S);
    const other = await send(survivor.app, plain.apiKey, '/v1/payments', { ...body, amount: 901 }, 'crash-2');
    assert.equal(other.statusCode, 409, other.body);
    assert.equal(other.json<ErrorBody>().error, 'idempotency_conflict');
    assert.equal((await paymentsOf(plain.tenantId, 'crash-2')).length, 1);
  });

  test('a crash while the provider creates: the retry resumes that create, one PaymentIntent', async () => {
    const creates = (r: FakeRequest) => r.method === 'POST' && r.path === '/v1/payment_intents';
    const before = fake.performed.filter(creates).length;
    const held = fake.hold(creates);
    const body = { amount: 4200, currency: 'EUR', metadata: { order: 'crash-3' } };
    sendToDying(stripe.apiKey, '/v1/payments', body, 'crash-3');
    await held.reached;
    const [made] = await paymentsOf(stripe.tenantId, 'crash-3');
    assert.ok(made !== undefined, 'our row is written before Stripe is asked');

    const retried = await retryTwice(stripe.apiKey, '/v1/payments', body, 'crash-3');
    held.release();
    assert.equal(retried.statusCode, 201, retried.body);
    const payment = retried.json<PaymentView>();
    assert.equal(payment.id, made.id);
    assert.match(payment.providerRef ?? '', /^pi_/, 'the create was resumed with its provider key');
    assert.equal((await paymentsOf(stripe.tenantId, 'crash-3')).length, 1);
    assert.equal(fake.performed.filter(creates).length - before, 1, 'one PaymentIntent at Stripe');
  });

  test('a refund made before the crash is answered to the retry after 310 s, not made again', async () => {
    const payment = await paymentsClient(survivor, plain.apiKey).paidPayment({
      amount: 1000,
      metadata: { order: 'crash-refund' },
    });
    const url = `/v1/payments/${payment.id}/refunds`;
    const body = { amount: 300 };
    sendToDying(plain.apiKey, url, body, 'refund-crash-1');
    const made = await eventually('A to refund', async () => {
      const rows = await refundsOf(plain.tenantId, payment.id);
      return rows[0]?.status === 'succeeded' ? rows[0] : undefined;
    });

    const retried = await retryTwice(plain.apiKey, url, body, 'refund-crash-1');
    assert.equal(retried.statusCode, 201, retried.body);
    assert.equal(retried.json<RefundView>().id, made.id, 'the refund made under the key');
    assert.equal((await refundsOf(plain.tenantId, payment.id)).length, 1, 'one refund for the key');
    const now = await call(survivor.app, {
      method: 'GET',
      url: `/v1/payments/${payment.id}`,
      headers: bearer(plain.apiKey),
    });
    assert.equal(now.json<PaymentView>().amountRefunded, 300);
  });
});
