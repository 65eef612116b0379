import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { listPage } from '../../../core/http/list-page.ts';
import type { PageInput } from '../../../core/http/pagination.ts';
import { REFUND_COLUMNS, type RefundRow, toRefund } from '../payment-row.ts';
import type { PaymentRef } from '../schema/payment.ts';
import type { RefundPage } from '../schema/refund.ts';
import { getPayment } from './get-payment.ts';

/** A payment's refunds, oldest first (404 for a payment the caller may not see). */
export async function listRefunds(
  ctx: ServiceContext,
  input: Static<typeof PaymentRef> & PageInput,
): Promise<Static<typeof RefundPage>> {
  await getPayment(ctx, input);
  return listPage(ctx, input, {
    select: `select seq, ${REFUND_COLUMNS} from payment_refunds r`,
    orderBy: 'r.seq',
    ascending: true,
    keyOf: (row) => row.seq,
    filters: (bind) => [`r.payment_id = ${bind(input.paymentId)}`],
    view: (row: RefundRow & { seq: string }) => toRefund(row),
  });
}
