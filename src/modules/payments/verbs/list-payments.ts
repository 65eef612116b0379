import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { keysetPage } from '../../../core/db/keyset-page.ts';
import { PAYMENT_COLUMNS, type PaymentRow, toPayment } from '../payment-row.ts';
import type { ListPaymentsInput, PaymentPage } from '../schema.ts';
import { customerLimit } from './customer-limit.ts';

/** Newest first, filtered by status, customer and auction. */
export async function listPayments(
  ctx: ServiceContext,
  input: Static<typeof ListPaymentsInput>,
): Promise<Static<typeof PaymentPage>> {
  const { page, nextCursor } = await keysetPage<PaymentRow>(ctx.db, ctx.tenantId, input, {
    select: `select ${PAYMENT_COLUMNS} from payments p`,
    orderBy: 'p.seq',
    keyOf: (row) => row.seq,
    filters: (bind) => {
      const where: string[] = [];
      const only = customerLimit(ctx);
      if (only !== undefined) where.push(`p.customer = ${bind(only)}`);
      if (input.customer !== undefined) where.push(`p.customer = ${bind(input.customer)}`);
      if (input.status !== undefined) where.push(`p.status = ${bind(input.status)}`);
      if (input.auctionId !== undefined) where.push(`p.auction_id = ${bind(input.auctionId)}`);
      return where;
    },
  });
  return { data: page.map(toPayment), nextCursor };
}
