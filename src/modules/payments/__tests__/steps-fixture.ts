import assert from 'node:assert/strict';
import { after } from 'node:test';
import { ManualClock } from '../../../core/clock.ts';
import type { ServiceContext } from '../../../core/context.ts';
import type { SettlementWorker } from '../settlement.ts';
import { STEP_LEASE_MS } from '../steps/step-keys.ts';
import type { FakeRequest } from './stripe-fake.ts';
import { StripeSuite } from './stripe-suite.ts';
import { type PaymentView, systemContext } from './support.ts';

/** Which requests to the local Stripe a step makes. */
export const stripePaths = {
  create: (r: FakeRequest) => r.method === 'POST' && r.path === '/v1/payment_intents',
  of: (payment: PaymentView, action: string) => (r: FakeRequest) =>
    r.path === `/v1/payment_intents/${payment.providerRef}/${action}`,
  refunds: (payment: PaymentView) => (r: FakeRequest) =>
    r.path === '/v1/refunds' && r.form.payment_intent === payment.providerRef,
};

/**
 * The suites of provider calls (steps/) against the local Stripe: an app on a manual clock whose tenant
 * pays through Stripe, and what they look at. Workers the tests start are stopped before the app closes.
 */
export class StepsSuite extends StripeSuite {
  readonly clock: ManualClock;
  readonly workers: SettlementWorker[];
  readonly paths: typeof stripePaths;

  constructor() {
    const workers: SettlementWorker[] = [];
    after(async () => {
      for (const worker of workers) await worker.stop();
    });
    const clock = new ManualClock(Date.now());
    super({
      clock,
      keys: {
        secretKey: 'sk_test_51StepsKeyForTheLocalStandIn',
        webhookSecret: 'whsec_stepsStandInSecret0123456789',
      },
    });
    this.clock = clock;
    this.workers = workers;
    this.paths = stripePaths;
  }

  /** The tenant's context with no principal, as the settlement worker has. */
  context(): ServiceContext {
    return systemContext(this.t, this.tenant.tenantId);
  }

  performed(match: (r: FakeRequest) => boolean): FakeRequest[] {
    return this.fake.performed.filter(match);
  }

  sent(match: (r: FakeRequest) => boolean): FakeRequest[] {
    return this.fake.requests.filter(match);
  }

  /** A payment of the shop authorized for manual capture (`requires_capture`). */
  held(amount = 4000): Promise<PaymentView> {
    return this.authorized({ amount, seller: 'shop' });
  }

  /** The step left as an instance that died mid-call leaves it: `calling`, its lease still running. */
  async dieMidCall(paymentId: string): Promise<void> {
    const { rowCount } = await this.t.db.query(
      `update payments set step_state = 'calling', step_until = $2 where id = $1 and step is not null`,
      [paymentId, new Date(this.clock.now() + STEP_LEASE_MS).toISOString()],
    );
    assert.equal(rowCount, 1);
  }
}
