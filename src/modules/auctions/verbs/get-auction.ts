import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { type AuctionView, readAuction, toAuction } from '../auction-row.ts';
import { auctionFor } from '../audience.ts';
import type { AuctionRef } from '../schema/auction.ts';

/** One auction as the caller may see it; a room-limited session sees its room's only. */
export async function getAuction(
  ctx: ServiceContext,
  input: Static<typeof AuctionRef>,
): Promise<AuctionView> {
  return auctionFor(ctx.principal, toAuction(await readAuction(ctx, input.auctionId), ctx.clock.now()));
}
