import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { InvalidRequest } from '../../../core/http/errors.ts';
import {
  AUCTION_COLUMNS,
  type AuctionRow,
  type AuctionView,
  lockAuction,
  toAuction,
} from '../auction-row.ts';
import { recordChanges } from '../changes.ts';
import { canTransition } from '../rules.ts';
import type { ScheduleInput } from '../schema.ts';
import { wrongStatus } from './auction-rules.ts';
import { auctionsConfig } from './config.ts';
import { readAuction } from './get-auction.ts';
import { checkRoomCapacity } from './lifecycle.ts';

/** draft -> scheduled: the scheduler starts it at `startsAt` (given here, or set on the auction before). */
export async function scheduleAuction(
  ctx: ServiceContext,
  input: Static<typeof ScheduleInput>,
): Promise<AuctionView> {
  await readAuction(ctx, input.auctionId);
  const { maxLivePerRoom } = await auctionsConfig(ctx);
  const now = ctx.clock.now();
  const auction = await inTenant(ctx, async (tx, _emit, emitEach) => {
    const { row, state } = await lockAuction(tx, input.auctionId);
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
    const seq = state.seq + 1;
    const { rows } = await tx.query<AuctionRow>(
      `update auctions set status = 'scheduled', starts_at = $3, seq = $4, updated_at = $5
        where id = $1 and seq = $2 and status = 'draft' returning ${AUCTION_COLUMNS}`,
      [row.id, state.seq, startsAt, seq, new Date(now).toISOString()],
    );
    const updated = rows[0];
    if (updated === undefined) throw new Error(`auction ${row.id} changed under its lock`);
    const view = toAuction(updated, now);
    await recordChanges(tx, ctx.tenantId, emitEach, [
      {
        by: ctx,
        type: 'auction.updated',
        data: {
          auctionId: row.id,
          roomId: row.room_id,
          seq,
          auction: view,
          changes: { status: 'scheduled' },
        },
      },
    ]);
    return view;
  });
  ctx.workers.wake('auctions');
  return auction;
}
