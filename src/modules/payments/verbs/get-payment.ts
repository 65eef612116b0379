import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { NotFound } from '../../../core/http/errors.ts';
import { customerLimit } from '../customers.ts';
import { type PaymentView, readPayment, toPayment } from '../payment-row.ts';
import type { PaymentRef } from '../schema/payment.ts';

export async function getPayment(
  ctx: ServiceContext,
  input: Static<typeof PaymentRef>,
): Promise<PaymentView> {
  const row = await readPayment(ctx, input.paymentId);
  const only = customerLimit(ctx);
  // Another actor's payment is not found for a session token (no hint that it exists).
  if (only !== undefined && row.customer_actor_id !== only.id) throw new NotFound('payment', input.paymentId);
  return toPayment(row);
}
