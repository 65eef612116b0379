import type { ServiceContext } from '../../../core/context.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import { AppError } from '../../../core/http/errors.ts';
import type { EndedAuction } from '../ended-auction.ts';
import type { PaymentView } from '../payment-row.ts';
import { paymentsConfig } from '../settings.ts';
import { createPaymentRecord } from './create-payment.ts';

/**
 * Settles an ended auction recorded by the outbox (`payment_settlements`): one payment for its winner,
 * with the final price. Idempotent and safe to race: the payment is unique per auction, so a second
 * attempt (the event seen twice, two instances) finds the first one's payment.
 */
export async function settleAuction(
  ctx: ServiceContext,
  auctionId: string,
): Promise<PaymentView | undefined> {
  const scope = { tenantId: ctx.tenantId };
  const { rows } = await tenantRead<{ data: EndedAuction; state: string }>(
    ctx.db,
    scope,
    'select data, state from payment_settlements where auction_id = $1',
    [auctionId],
  );
  const settlement = rows[0];
  if (settlement === undefined || settlement.state !== 'pending') return undefined;
  const { settleAuctions } = await paymentsConfig(ctx);
  const enabled = (await ctx.enablement.states(ctx.tenantId)).get('payments')?.enabled === true;
  // A tenant with payments off, or settlement off, gets no payment: the ended auction stays recorded.
  if (!settleAuctions || !enabled) {
    await tenantRead(
      ctx.db,
      scope,
      `update payment_settlements set state = 'skipped' where auction_id = $1`,
      [auctionId],
    );
    return undefined;
  }
  const sale = settlement.data;
  let payment: PaymentView | undefined;
  let failure: unknown;
  try {
    payment = await createPaymentRecord(ctx, {
      amount: sale.finalPrice,
      currency: sale.currency,
      customer: sale.winner,
      seller: `room:${sale.roomId}`,
      description: `Auction ${sale.auctionId}`,
      metadata: { auctionId: sale.auctionId, roomId: sale.roomId, outcome: sale.outcome },
      auctionId: sale.auctionId,
    });
  } catch (error) {
    // Another attempt may have created it first (then the update below finds it).
    if (!(error instanceof AppError && error.code === 'conflict')) throw error;
    failure = error;
  }
  const { rows: settled } = await tenantRead<{ payment_id: string }>(
    ctx.db,
    scope,
    `update payment_settlements s set state = 'settled', payment_id = p.id
       from payments p where p.auction_id = s.auction_id and s.auction_id = $1
     returning s.payment_id`,
    [auctionId],
  );
  if (settled.length === 0 && failure !== undefined) throw failure;
  return payment;
}
