import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { InvalidRequest } from '../../../core/http/errors.ts';
import type { PaymentView } from '../payment-row.ts';
import type { ConfirmInput } from '../schema/payment.ts';
import { changePayment } from '../steps/run-step.ts';

/**
 * Confirms a payment with a payment method (attached now or at creation), or completes the action a
 * confirmation asked for. The provider's answer decides where it goes; a decline goes back to
 * `requires_payment_method` with `lastError`. The provider is asked outside the payment's transaction
 * (steps.ts); a new payment method is attached with the answer.
 */
export function confirmPayment(
  ctx: ServiceContext,
  input: Static<typeof ConfirmInput>,
): Promise<PaymentView> {
  return changePayment(ctx, input.paymentId, 'confirm', (row) => {
    const paymentMethod = input.paymentMethod ?? row.payment_method;
    if (paymentMethod === null) {
      throw new InvalidRequest('confirm needs a payment method: send paymentMethod', [
        {
          field: '/body/paymentMethod',
          message: 'is required: the payment has none attached',
          code: 'required',
        },
      ]);
    }
    return { paymentMethod };
  });
}
