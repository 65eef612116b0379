import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { listPage } from '../../../core/http/list-page.ts';
import { customerLimit } from '../customers.ts';
import { PAYMENT_COLUMNS, type PaymentRow, toPayment } from '../payment-row.ts';
import type { ListPaymentsInput, PaymentPage } from '../schema/payment.ts';

/** Newest first, filtered by status, customer (its Actor id) and auction. */
export function listPayments(
  ctx: ServiceContext,
  input: Static<typeof ListPaymentsInput>,
): Promise<Static<typeof PaymentPage>> {
  return listPage(ctx, input, {
    select: `select ${PAYMENT_COLUMNS} from payments`,
    orderBy: 'payments.seq',
    keyOf: (row) => row.seq,
    filters: (bind) => {
      const where: string[] = [];
      const only = customerLimit(ctx);
      if (only !== undefined) where.push(`payments.customer_actor_id = ${bind(only.id)}`);
      if (input.customer !== undefined)
        where.push(
          `payments.customer_actor_id = (select id from actors where external_id = ${bind(input.customer)})`,
        );
      if (input.status !== undefined) where.push(`payments.status = ${bind(input.status)}`);
      if (input.auctionId !== undefined) where.push(`payments.auction_id = ${bind(input.auctionId)}`);
      return where;
    },
    view: (row: PaymentRow) => toPayment(row),
  });
}
