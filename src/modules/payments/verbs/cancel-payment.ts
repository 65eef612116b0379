import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { lockPayment, type PaymentView, providerView, toPayment } from '../payment-row.ts';
import { providerFor } from '../providers/index.ts';
import type { CancelInput } from '../schema.ts';
import { assertOperation } from '../states.ts';
import { applyOutcome } from './apply-outcome.ts';

/** Cancels a payment that has not succeeded; an authorization held for capture is released. */
export async function cancelPayment(
  ctx: ServiceContext,
  input: Static<typeof CancelInput>,
): Promise<PaymentView> {
  return inTenant(ctx, async (tx, emit) => {
    const row = await lockPayment(tx, input.paymentId);
    assertOperation(row.id, row.status, 'cancel');
    const provider = await providerFor(ctx, row.provider);
    await provider.cancel(providerView(row));
    const saved = await applyOutcome(
      ctx,
      tx,
      emit,
      row,
      { status: 'canceled' },
      {
        cancellation_reason: input.reason ?? null,
      },
    );
    return toPayment(saved);
  });
}
