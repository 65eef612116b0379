import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { lockPayment, type PaymentView, providerView, toPayment } from '../payment-row.ts';
import type { CancelInput } from '../schema.ts';
import { assertOperation } from '../states.ts';
import { applyOutcome } from './apply-outcome.ts';
import { prepare } from './prepare.ts';

/** Cancels a payment that has not succeeded; an authorization held for capture is released. */
export async function cancelPayment(
  ctx: ServiceContext,
  input: Static<typeof CancelInput>,
): Promise<PaymentView> {
  const { provider, settings } = await prepare(ctx, input.paymentId);
  return inTenant(ctx, async (tx, emit) => {
    const row = await lockPayment(tx, input.paymentId);
    assertOperation(row.id, row.status, 'cancel');
    await provider.cancel(providerView(row));
    const saved = await applyOutcome(ctx, tx, emit, row, { status: 'canceled' }, settings, {
      cancellation_reason: input.reason ?? null,
    });
    return toPayment(saved);
  });
}
