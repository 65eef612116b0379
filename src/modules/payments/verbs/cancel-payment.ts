import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { type PaymentView, toPayment } from '../payment-row.ts';
import type { CancelInput } from '../schema/payment.ts';
import { assertOperation } from '../states.ts';
import { runStep } from '../steps/run-step.ts';

/** Cancels a payment that has not succeeded; an authorization held for capture is released. */
export async function cancelPayment(
  ctx: ServiceContext,
  input: Static<typeof CancelInput>,
): Promise<PaymentView> {
  const saved = await runStep(ctx, input.paymentId, 'cancel', (row) => {
    assertOperation(row.id, row.status, 'cancel');
    return { reason: input.reason ?? null };
  });
  return toPayment(saved);
}
