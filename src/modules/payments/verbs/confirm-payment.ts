import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { InvalidRequest } from '../../../core/http/errors.ts';
import { lockPayment, type PaymentView, providerView, savePayment, toPayment } from '../payment-row.ts';
import type { ConfirmInput } from '../schema.ts';
import { assertOperation, transition } from '../states.ts';
import { applyOutcome } from './apply-outcome.ts';
import { prepare } from './prepare.ts';

/**
 * Confirms a payment with a payment method (attached now or at creation), or completes the action a
 * confirmation asked for. The provider's answer decides where it goes; a decline goes back to
 * `requires_payment_method` with `lastError`.
 */
export async function confirmPayment(
  ctx: ServiceContext,
  input: Static<typeof ConfirmInput>,
): Promise<PaymentView> {
  const { provider, settings } = await prepare(ctx, input.paymentId);
  return inTenant(ctx, async (tx, emit) => {
    let row = await lockPayment(tx, input.paymentId);
    assertOperation(row.id, row.status, 'confirm');
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
    if (row.status === 'requires_payment_method' || paymentMethod !== row.payment_method) {
      // A new payment method starts the confirmation over: (back to requires_payment_method, then)
      // requires_confirmation with it attached.
      let status = row.status;
      if (status === 'requires_action') status = transition(row.id, status, 'requires_payment_method');
      if (status === 'requires_payment_method') status = transition(row.id, status, 'requires_confirmation');
      row = await savePayment(
        tx,
        row.id,
        { status, payment_method: paymentMethod, last_error: null, next_action: null },
        ctx.clock.now(),
      );
    }
    const outcome = await provider.confirm(providerView(row), paymentMethod);
    const saved = await applyOutcome(ctx, tx, emit, row, outcome, settings);
    return toPayment(saved);
  });
}
