import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import { REFUND_COLUMNS, type RefundRow, toRefund } from '../payment-row.ts';
import type { PaymentRef, RefundPage } from '../schema.ts';
import { getPayment } from './get-payment.ts';

/** A payment's refunds, oldest first (a payment has few). */
export async function listRefunds(
  ctx: ServiceContext,
  input: Static<typeof PaymentRef>,
): Promise<Static<typeof RefundPage>> {
  await getPayment(ctx, input);
  const { rows } = await tenantRead<RefundRow>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select ${REFUND_COLUMNS} from payment_refunds where payment_id = $1 order by seq limit 1000`,
    [input.paymentId],
  );
  return { data: rows.map(toRefund) };
}
