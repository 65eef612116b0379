import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { InvalidRequest } from '../../../core/http/errors.ts';
import type { PaymentView } from '../payment-row.ts';
import type { CaptureInput } from '../schema/payment.ts';
import { changePayment } from '../steps/run-step.ts';

/** Captures an authorized payment, in whole or in part (the rest is released), and posts the sale. */
export function capturePayment(
  ctx: ServiceContext,
  input: Static<typeof CaptureInput>,
): Promise<PaymentView> {
  return changePayment(ctx, input.paymentId, 'capture', (row) => {
    const capturable = Number(row.amount_capturable);
    const amount = input.amountToCapture ?? capturable;
    if (amount > capturable) {
      throw new InvalidRequest(`amountToCapture ${amount} is more than the ${capturable} authorized`, [
        { field: '/body/amountToCapture', message: `at most ${capturable}`, code: 'amount_too_large' },
      ]);
    }
    return { amount };
  });
}
