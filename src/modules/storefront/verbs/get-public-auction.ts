import type { ServiceContext } from '../../../core/context.ts';
import { NotFound } from '../../../core/http/errors.ts';
import { getPublishedAuction, type PublishedAuction } from '../../auctions/port.ts';
import { publicStorefront } from '../lookups/public-storefront.ts';

/** One published auction of the key's storefront; drafts, cancelled and unlisted auctions are 404. */
export async function getPublicAuction(
  ctx: ServiceContext,
  { auctionId, origin }: { auctionId: string; origin: string | undefined },
): Promise<PublishedAuction> {
  const { roomIds } = await publicStorefront(ctx, origin);
  const auction = await getPublishedAuction(ctx, auctionId, roomIds);
  if (auction === undefined) throw new NotFound('auction', auctionId);
  return auction;
}
