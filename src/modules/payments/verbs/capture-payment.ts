import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { InvalidRequest } from '../../../core/http/errors.ts';
import { lockPayment, type PaymentView, providerView, toPayment } from '../payment-row.ts';
import type { CaptureInput } from '../schema.ts';
import { assertOperation } from '../states.ts';
import { applyOutcome } from './apply-outcome.ts';
import { prepare } from './prepare.ts';

/** Captures an authorized payment, in whole or in part (the rest is released), and posts the sale. */
export async function capturePayment(
  ctx: ServiceContext,
  input: Static<typeof CaptureInput>,
): Promise<PaymentView> {
  const { provider, settings } = await prepare(ctx, input.paymentId);
  return inTenant(ctx, async (tx, emit) => {
    const row = await lockPayment(tx, input.paymentId);
    assertOperation(row.id, row.status, 'capture');
    const capturable = Number(row.amount_capturable);
    const amount = input.amountToCapture ?? capturable;
    if (amount > capturable) {
      throw new InvalidRequest(`amountToCapture ${amount} is more than the ${capturable} authorized`, [
        { field: '/body/amountToCapture', message: `at most ${capturable}`, code: 'amount_too_large' },
      ]);
    }
    await provider.capture(providerView(row), amount);
    const saved = await applyOutcome(ctx, tx, emit, row, { status: 'succeeded' }, settings, {
      captured: amount,
    });
    return toPayment(saved);
  });
}
