import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { type AuctionView, toAuction } from '../auction-row.ts';
import { auctionFor } from '../audience.ts';
import { recordChanges } from '../changes.ts';
import { changeAuction } from '../lifecycle/change-auction.ts';
import { auctionsConfig } from '../lifecycle/tenant-config.ts';
import { wrongStatus } from '../lifecycle/terms.ts';
import { checkRoomCapacity, goLive } from '../lifecycle/transitions.ts';
import { canTransition } from '../rules.ts';
import type { AuctionRef } from '../schema/auction.ts';

/** Manual start: a draft or scheduled auction goes live now and ends `durationSeconds` later. */
export async function startAuction(
  ctx: ServiceContext,
  input: Static<typeof AuctionRef>,
): Promise<AuctionView> {
  const { maxLivePerRoom } = await auctionsConfig(ctx);
  const now = ctx.clock.now();
  const auction = await changeAuction(ctx, input.auctionId, async (tx, loaded, emitEach) => {
    const { row, state } = loaded;
    if (!canTransition(state.status, 'live')) throw wrongStatus(row.id, state.status, 'be started');
    // A scheduled auction counts against the room already.
    if (state.status === 'draft') await checkRoomCapacity(tx, ctx, row.room_id, maxLivePerRoom);
    const { row: saved, change } = await goLive(tx, ctx, loaded, now);
    await recordChanges(tx, ctx.tenantId, emitEach, [change]);
    return toAuction(saved, now);
  });
  ctx.workers.wake('auctions');
  return auctionFor(ctx.principal, auction);
}
