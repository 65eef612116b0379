import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { listPage } from '../../../core/http/list-page.ts';
import { actorView } from '../../../core/tenancy/actors.ts';
import { readAuction } from '../auction-row.ts';
import type { Bidder } from '../rules.ts';
import type { BidPage, ListBidsArguments } from '../schema/bid.ts';

interface BidRow {
  id: string;
  seq: number | string;
  kind: 'bid' | 'buy_now';
  bidder: Bidder;
  amount: number | string;
  price_after: number | string;
  leading_after: boolean;
  client_bid_id: string | null;
  created_at: Date | string;
}

/** An auction's accepted bids, newest first; no bidder's maximum is shown. */
export async function listBids(
  ctx: ServiceContext,
  input: Static<typeof ListBidsArguments>,
): Promise<Static<typeof BidPage>> {
  await readAuction(ctx, input.auctionId);
  return listPage(ctx, input, {
    select: `select id, seq, kind, bidder, amount, price_after, leading_after, client_bid_id, created_at
               from auction_bids`,
    orderBy: 'seq',
    keyOf: (row: BidRow) => row.seq,
    filters: (bind) => [`auction_id = ${bind(input.auctionId)}`],
    view: (r) => ({
      id: r.id,
      auctionId: input.auctionId,
      seq: Number(r.seq),
      kind: r.kind,
      bidder: actorView(r.bidder),
      amount: Number(r.amount),
      priceAfter: Number(r.price_after),
      leading: r.leading_after,
      clientBidId: r.client_bid_id,
      createdAt: new Date(r.created_at).toISOString(),
    }),
  });
}
