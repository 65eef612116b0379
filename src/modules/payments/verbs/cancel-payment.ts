import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import type { PaymentView } from '../payment-row.ts';
import type { CancelInput } from '../schema/payment.ts';
import { changePayment } from '../steps/run-step.ts';

/** Cancels a payment that has not succeeded; an authorization held for capture is released. */
export function cancelPayment(ctx: ServiceContext, input: Static<typeof CancelInput>): Promise<PaymentView> {
  return changePayment(ctx, input.paymentId, 'cancel', () => ({ reason: input.reason ?? null }));
}
