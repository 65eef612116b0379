import type { EmitEach, ServiceContext } from '../../../core/context.ts';
import type { Queryable } from '../../../core/db/database.ts';
import {
  AUCTION_COLUMNS,
  type AuctionRow,
  type AuctionView,
  type LoadedAuction,
  toAuction,
} from '../auction-row.ts';
import { recordChanges } from '../changes.ts';

export interface AuctionUpdate {
  /** New values by column name (names written here in code, never taken from input). */
  set: Record<string, unknown>;
  /** What the `auction.updated` says changed. */
  changes: Record<string, unknown>;
  now: number;
  /** Write only while the auction still has this status. */
  whileStatus?: string;
}

/**
 * Writes new columns to a locked auction, its seq moved on by one, and records its `auction.updated`.
 * Returns the auction as it now is.
 */
export async function saveUpdate(
  tx: Queryable,
  ctx: ServiceContext,
  emitEach: EmitEach,
  { row, state }: LoadedAuction,
  { set, changes, now, whileStatus }: AuctionUpdate,
): Promise<AuctionView> {
  const seq = state.seq + 1;
  const values = Object.values(set);
  const assignments = Object.keys(set).map((column, i) => `${column} = $${i + 3}`);
  const at = values.length + 3;
  const { rows } = await tx.query<AuctionRow>(
    `update auctions set ${assignments.join(', ')}, seq = $${at}, updated_at = $${at + 1}
      where id = $1 and seq = $2 ${whileStatus === undefined ? '' : `and status = $${at + 2}`}
      returning ${AUCTION_COLUMNS}`,
    [
      row.id,
      state.seq,
      ...values,
      seq,
      new Date(now).toISOString(),
      ...(whileStatus === undefined ? [] : [whileStatus]),
    ],
  );
  const updated = rows[0];
  if (updated === undefined) throw new Error(`auction ${row.id} changed under its lock`);
  const view = toAuction(updated, now);
  await recordChanges(tx, ctx.tenantId, emitEach, [
    {
      by: ctx,
      type: 'auction.updated',
      data: { auctionId: row.id, roomId: row.room_id, seq, auction: view, changes },
    },
  ]);
  return view;
}
