import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { submitBid } from '../bidding/bid-writer.ts';
import type { PlacedBid } from '../bidding/decide-group.ts';
import type { PlaceBidArguments } from '../schema/bid.ts';

/**
 * Places a bid: amount and/or proxy maxAmount. Bids on one auction are decided in arrival order, in groups
 * (the ordering rules are in bidding/group-write.ts); a session bids as its own actor, an API key for the
 * actor it names.
 */
export async function placeBid(
  ctx: ServiceContext,
  input: Static<typeof PlaceBidArguments>,
): Promise<PlacedBid> {
  return submitBid(ctx, 'bid', input);
}
