import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import { NotFound } from '../../../core/http/errors.ts';
import { customerLimit } from '../customers.ts';
import { PAYMENT_COLUMNS, type PaymentRow, type PaymentView, toPayment } from '../payment-row.ts';
import type { PaymentRef } from '../schema/payment.ts';

export async function getPayment(
  ctx: ServiceContext,
  input: Static<typeof PaymentRef>,
): Promise<PaymentView> {
  const { rows } = await tenantRead<PaymentRow>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select ${PAYMENT_COLUMNS} from payments where id = $1`,
    [input.paymentId],
  );
  const row = rows[0];
  const only = customerLimit(ctx);
  if (row === undefined || (only !== undefined && row.customer_actor_id !== only.id))
    throw new NotFound('payment', input.paymentId);
  return toPayment(row);
}
