import type { Static } from 'typebox';
import { hasScope } from '../../../core/auth/principal.ts';
import type { ServiceContext } from '../../../core/context.ts';
import { AppError } from '../../../core/http/errors.ts';
import { type AuctionView, toAuction } from '../auction-row.ts';
import { auctionFor } from '../audience.ts';
import { recordChanges } from '../changes.ts';
import { changeAuction } from '../lifecycle/change-auction.ts';
import { wrongStatus } from '../lifecycle/terms.ts';
import { saveTransition } from '../lifecycle/transitions.ts';
import { canTransition } from '../rules.ts';
import type { CancelAuctionArguments } from '../schema/auction.ts';

/** The scope that may cancel a live auction with bids (its bids are kept). */
export const DESTRUCTIVE_SCOPE = 'auctions:admin';

/** draft, scheduled or live -> cancelled. A live auction with bids needs `auctions:admin`. */
export async function cancelAuction(
  ctx: ServiceContext,
  input: Static<typeof CancelAuctionArguments>,
): Promise<AuctionView> {
  const now = ctx.clock.now();
  const auction = await changeAuction(ctx, input.auctionId, async (tx, loaded, emitEach) => {
    const { row, state } = loaded;
    if (!canTransition(state.status, 'cancelled')) throw wrongStatus(row.id, state.status, 'be cancelled');
    if (
      state.status === 'live' &&
      state.bidCount > 0 &&
      (ctx.principal === undefined || !hasScope(ctx.principal, DESTRUCTIVE_SCOPE))
    ) {
      throw new AppError(
        'insufficient_scope',
        `auction ${row.id} is live with ${state.bidCount} bids: cancelling it needs ${DESTRUCTIVE_SCOPE}`,
      );
    }
    const saved = await saveTransition(tx, loaded, now, () => {
      state.status = 'cancelled';
      state.seq += 1;
      return { endedAt: now };
    });
    const view = toAuction(saved, now);
    await recordChanges(tx, ctx.tenantId, emitEach, [
      {
        by: ctx,
        type: 'auction.cancelled',
        data: {
          auctionId: row.id,
          roomId: row.room_id,
          seq: state.seq,
          reason: input.reason ?? null,
          auction: view,
        },
      },
    ]);
    return view;
  });
  ctx.workers.wake('auctions');
  return auctionFor(ctx.principal, auction);
}
