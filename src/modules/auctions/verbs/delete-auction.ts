import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { changeAuction } from '../lifecycle/change-auction.ts';
import { wrongStatus } from '../lifecycle/terms.ts';
import type { AuctionRef, DeletedAuction } from '../schema/auction.ts';

/** Deletes a draft for good (nothing of it was public yet); anything later is cancelled instead. */
export async function deleteAuction(
  ctx: ServiceContext,
  input: Static<typeof AuctionRef>,
): Promise<Static<typeof DeletedAuction>> {
  return changeAuction(ctx, input.auctionId, async (tx, { state }) => {
    if (state.status !== 'draft') throw wrongStatus(input.auctionId, state.status, 'be deleted (cancel it)');
    await tx.query('delete from auctions where id = $1', [input.auctionId]);
    return { id: input.auctionId, deleted: true as const };
  });
}
