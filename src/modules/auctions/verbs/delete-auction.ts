import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { lockAuction, readAuction } from '../auction-row.ts';
import { wrongStatus } from '../lifecycle/terms.ts';
import type { AuctionRef, DeletedAuction } from '../schema/auction.ts';

/** Deletes a draft for good (nothing of it was public yet); anything later is cancelled instead. */
export async function deleteAuction(
  ctx: ServiceContext,
  input: Static<typeof AuctionRef>,
): Promise<Static<typeof DeletedAuction>> {
  await readAuction(ctx, input.auctionId);
  return inTenant(ctx, async (tx) => {
    const { state } = await lockAuction(tx, input.auctionId);
    if (state.status !== 'draft') throw wrongStatus(input.auctionId, state.status, 'be deleted (cancel it)');
    await tx.query('delete from auctions where id = $1', [input.auctionId]);
    return { id: input.auctionId, deleted: true as const };
  });
}
