import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import type { AuctionView } from '../auction-row.ts';
import { auctionFor } from '../audience.ts';
import { changeAuction } from '../lifecycle/change-auction.ts';
import { saveUpdate } from '../lifecycle/save-update.ts';
import { auctionsConfig } from '../lifecycle/tenant-config.ts';
import { checkTerms, wrongStatus } from '../lifecycle/terms.ts';
import { isEditable } from '../rules.ts';
import type { UpdateAuctionArguments } from '../schema/auction.ts';

/** Edits an auction in draft or scheduled; a null removes an optional term. Metadata merges by key. */
export async function updateAuction(
  ctx: ServiceContext,
  input: Static<typeof UpdateAuctionArguments>,
): Promise<AuctionView> {
  const config = await auctionsConfig(ctx);
  const { auctionId, ...patch } = input;
  const now = ctx.clock.now();
  const auction = await changeAuction(ctx, auctionId, async (tx, { row, state }, emitEach) => {
    if (!isEditable(state.status)) throw wrongStatus(auctionId, state.status, 'be edited');
    const pick = <T>(value: T | undefined, current: T): T => (value === undefined ? current : value);
    const next = {
      title: pick(patch.title, row.title),
      description: pick(patch.description, row.description),
      currency: pick(patch.currency, row.currency),
      startingPrice: pick(patch.startingPrice, state.startingPrice),
      reservePrice: pick(patch.reservePrice, state.reservePrice),
      buyNowPrice: pick(patch.buyNowPrice, state.buyNowPrice),
      // null: back to the tenant's default.
      increments: patch.increments === null ? config.increments : (patch.increments ?? state.increments),
      startsAt: pick(patch.startsAt, row.starts_at),
      durationSeconds: pick(patch.durationSeconds, row.duration_seconds),
      softClose: patch.softClose === null ? config.softClose : (patch.softClose ?? state.softClose),
      suddenDeath: pick(patch.suddenDeath, state.suddenDeath),
      published: pick(patch.published, row.published),
      metadata: { ...row.metadata, ...(patch.metadata ?? {}) },
    };
    checkTerms(next);
    if (state.status === 'scheduled' && next.startsAt === null)
      throw wrongStatus(auctionId, state.status, 'lose its start time (schedule it again from draft)');
    return saveUpdate(
      tx,
      ctx,
      emitEach,
      { row, state },
      {
        set: {
          title: next.title,
          description: next.description,
          currency: next.currency,
          starting_price: next.startingPrice,
          reserve_price: next.reservePrice,
          buy_now_price: next.buyNowPrice,
          increments: JSON.stringify(next.increments),
          starts_at: next.startsAt,
          duration_seconds: next.durationSeconds,
          soft_close: JSON.stringify(next.softClose),
          sudden_death: next.suddenDeath,
          published: next.published,
          metadata: JSON.stringify(next.metadata),
        },
        changes: patch,
        now,
      },
    );
  });
  // A new start time moves the scheduler's next wake-up.
  if (patch.startsAt !== undefined) ctx.workers.wake('auctions');
  return auctionFor(ctx.principal, auction);
}
