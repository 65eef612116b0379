import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { TestTenant } from '../../../../test/factories.ts';
import type { TestApp } from '../../../../test/helper.ts';
import { ManualClock } from '../../../core/clock.ts';
import type { ServiceContext } from '../../../core/context.ts';
import { traceFrom } from '../../../core/http/request-id.ts';
import type { SettlementWorker } from '../settlement.ts';
import { STEP_LEASE_MS } from '../steps/step-keys.ts';
import { type FakeRequest, StripeFake } from './stripe-fake.ts';
import { act, createPayment, get, type PaymentView, payThroughStripe, tenantApp } from './support.ts';

const SECRET_KEY = 'sk_test_51StepsKeyForTheLocalStandIn';
export const WEBHOOK_SECRET = 'whsec_stepsStandInSecret0123456789';

/**
 * The suites of provider calls (steps.ts) against the local Stripe: an app on a manual clock whose tenant
 * pays through Stripe, set up before the suite's tests and closed after them, and what they look at.
 */
export function stripeStepsFixture() {
  const fake = new StripeFake();
  const clock = new ManualClock(Date.now());
  const workers: SettlementWorker[] = [];
  let t: TestApp | undefined;
  let tenant: TestTenant | undefined;

  before(async () => {
    const url = await fake.start();
    ({ t, tenant } = await tenantApp({ config: { stripeApiUrl: url }, clock }));
    await payThroughStripe(t, tenant, { secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET });
  });
  after(async () => {
    for (const worker of workers) await worker.stop();
    await t?.close();
    await fake.stop();
  });

  const app = (): { t: TestApp; tenant: TestTenant; key: string } => {
    if (t === undefined || tenant === undefined) throw new Error('the fixture is set up before the tests');
    return { t, tenant, key: tenant.apiKey };
  };
  const context = (): ServiceContext => ({
    ...app().t.app.services,
    log: app().t.app.log,
    tenantId: app().tenant.tenantId,
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
  const read = async (id: string) =>
    (await get(app().t, app().key, `/v1/payments/${id}`)).json<PaymentView>();
  const authorized = async (amount = 4000) => {
    const { t, key } = app();
    const payment = await createPayment(t, key, { amount, captureMethod: 'manual', seller: 'shop' });
    const res = await act(t, key, payment.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    assert.equal(res.json<PaymentView>().status, 'requires_capture', res.body);
    return res.json<PaymentView>();
  };
  const captureTransactions = async (paymentId: string) =>
    (await get(app().t, app().key, `/v1/ledger/transactions?paymentId=${paymentId}`))
      .json<{ data: { kind: string }[] }>()
      .data.filter((x) => x.kind === 'capture').length;
  const ledgerOk = async () => {
    const check = (await get(app().t, app().key, '/v1/ledger/check')).json<{ ok: boolean }>();
    assert.equal(check.ok, true, JSON.stringify(check));
  };
  /** The step left as an instance that died mid-call leaves it: `calling`, its lease still running. */
  const dieMidCall = async (paymentId: string) => {
    const { rowCount } = await app().t.db.query(
      `update payments set step_state = 'calling', step_until = $2 where id = $1 and step is not null`,
      [paymentId, new Date(clock.now() + STEP_LEASE_MS).toISOString()],
    );
    assert.equal(rowCount, 1);
  };

  return {
    app,
    fake,
    clock,
    workers,
    context,
    paths,
    performed,
    sent,
    read,
    authorized,
    captureTransactions,
    ledgerOk,
    dieMidCall,
  };
}
