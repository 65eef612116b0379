import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { Conflict } from '../../../core/http/errors.ts';
import { lockPayment, type PaymentView, providerView, toPayment } from '../payment-row.ts';
import { testProvider } from '../providers/index.ts';
import type { PaymentId } from '../schema/common.ts';
import type { SimulateBody } from '../schema/payment.ts';
import { paymentsConfig } from '../settings.ts';
import { assertOperation } from '../states.ts';
import { applyOutcome } from '../steps/apply-outcome.ts';

/**
 * The test provider's webhook for a processing payment, simulated: it reports the outcome, and the payment
 * moves on as a real provider's webhook would move it.
 */
export async function simulateWebhook(
  ctx: ServiceContext,
  input: Static<typeof SimulateBody> & { paymentId: Static<typeof PaymentId> },
): Promise<PaymentView> {
  const settings = await paymentsConfig(ctx);
  return inTenant(ctx, async (tx, emit) => {
    const row = await lockPayment(tx, input.paymentId);
    if (row.provider !== 'test') {
      throw new Conflict(
        `payment ${row.id} is with ${row.provider}; only test payments take simulated webhooks`,
      );
    }
    assertOperation(row.id, row.status, 'simulate');
    const { outcome } = testProvider().translateEvent({
      id: `sim_${row.id}`,
      payment: providerView(row),
      outcome: input.outcome,
    });
    if (outcome === undefined) throw new Error('a simulated webhook always has an outcome');
    return toPayment(await applyOutcome({ ctx, tx, emit, settings }, row, outcome));
  });
}
