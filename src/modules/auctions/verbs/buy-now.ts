import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { submitBid } from '../bidding/bid-writer.ts';
import type { PlacedBid } from '../bidding/decide-group.ts';
import type { BuyNowArguments } from '../schema/bid.ts';

/** Buys at the buy-now price while it is offered: the auction ends at once. Ordered with the bids. */
export async function buyNow(ctx: ServiceContext, input: Static<typeof BuyNowArguments>): Promise<PlacedBid> {
  return submitBid(ctx, 'buy_now', input);
}
