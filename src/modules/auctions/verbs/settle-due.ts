import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { AUCTION_COLUMNS, type AuctionRow, stateOf } from '../auction-row.ts';
import { recordChanges } from '../changes.ts';
import { endDue, goLive } from '../lifecycle/transitions.ts';

export type Settled = 'started' | 'ended' | 'busy' | 'nothing';

/**
 * Starts a scheduled auction whose start has come, or ends a live one whose end has passed. The row is
 * taken with SKIP LOCKED (`busy` when a bid or another instance holds it: look again soon) and changed
 * only while it is still due, so each start and each end happens once, whichever instance gets there.
 */
export async function settleDue(ctx: ServiceContext, auctionId: string): Promise<Settled> {
  const now = ctx.clock.now();
  return inTenant(ctx, async (tx, _emit, emitEach) => {
    const { rows } = await tx.query<AuctionRow>(
      `select ${AUCTION_COLUMNS} from auctions
        where id = $1 and ((status = 'scheduled' and starts_at <= $2) or (status = 'live' and ends_at <= $2))
        for update skip locked`,
      [auctionId, new Date(now).toISOString()],
    );
    const row = rows[0];
    if (row === undefined) {
      const { rows: still } = await tx.query(
        'select 1 from auctions where id = $1 and ((status = $2 and starts_at <= $3) or (status = $4 and ends_at <= $3))',
        [auctionId, 'scheduled', new Date(now).toISOString(), 'live'],
      );
      return still.length > 0 ? 'busy' : 'nothing';
    }
    const loaded = { row, state: stateOf(row) };
    const done =
      row.status === 'scheduled' ? await goLive(tx, ctx, loaded, now) : await endDue(tx, ctx, loaded, now);
    await recordChanges(tx, ctx.tenantId, emitEach, [done.change]);
    return row.status === 'scheduled' ? 'started' : 'ended';
  });
}
