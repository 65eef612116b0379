import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { InvalidRequest } from '../../../core/http/errors.ts';
import type { AuctionView } from '../auction-row.ts';
import { auctionFor } from '../audience.ts';
import { changeAuction } from '../lifecycle/change-auction.ts';
import { saveUpdate } from '../lifecycle/save-update.ts';
import { auctionsConfig } from '../lifecycle/tenant-config.ts';
import { wrongStatus } from '../lifecycle/terms.ts';
import { checkRoomCapacity } from '../lifecycle/transitions.ts';
import { canTransition } from '../rules.ts';
import type { ScheduleAuctionArguments } from '../schema/auction.ts';

/** draft -> scheduled: the scheduler starts it at `startsAt` (given here, or set on the auction before). */
export async function scheduleAuction(
  ctx: ServiceContext,
  input: Static<typeof ScheduleAuctionArguments>,
): Promise<AuctionView> {
  const { maxLivePerRoom } = await auctionsConfig(ctx);
  const now = ctx.clock.now();
  const auction = await changeAuction(ctx, input.auctionId, async (tx, { row, state }, emitEach) => {
    if (state.status !== 'draft' || !canTransition(state.status, 'scheduled'))
      throw wrongStatus(row.id, state.status, 'be scheduled (only a draft can)');
    const startsAt = input.startsAt ?? row.starts_at;
    if (startsAt === null || Date.parse(startsAt) <= now) {
      throw new InvalidRequest('a scheduled auction needs a start time in the future', [
        {
          field: '/body/startsAt',
          message: startsAt === null ? 'is required' : 'must be in the future',
          code: startsAt === null ? 'required' : 'in_the_past',
        },
      ]);
    }
    await checkRoomCapacity(tx, ctx, row.room_id, maxLivePerRoom);
    return saveUpdate(
      tx,
      ctx,
      emitEach,
      { row, state },
      {
        set: { status: 'scheduled', starts_at: startsAt },
        changes: { status: 'scheduled' },
        now,
        whileStatus: 'draft',
      },
    );
  });
  ctx.workers.wake('auctions');
  return auctionFor(ctx.principal, auction);
}
