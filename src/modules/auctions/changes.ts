import type { EmitEach, GroupEvent, ServiceContext } from '../../core/context.ts';
import type { Queryable } from '../../core/db/database.ts';
import { endUserFrame } from './audience.ts';

/** Every event the module emits; each one takes the auction's next seq. */
export const AUCTION_EVENTS = [
  'auction.created',
  'auction.updated',
  'auction.started',
  'auction.bid.placed',
  'auction.extended',
  'auction.ended',
  'auction.cancelled',
] as const;
export type AuctionEventType = (typeof AUCTION_EVENTS)[number];

/** The realtime frame of each event: `auction.bid.placed` is the short `auction.bid`. */
export const FRAME_TYPE: Record<AuctionEventType, string> = {
  'auction.created': 'auction.created',
  'auction.updated': 'auction.updated',
  'auction.started': 'auction.started',
  'auction.bid.placed': 'auction.bid',
  'auction.extended': 'auction.extended',
  'auction.ended': 'auction.ended',
  'auction.cancelled': 'auction.cancelled',
};

export function isAuctionEvent(type: string): type is AuctionEventType {
  return (AUCTION_EVENTS as readonly string[]).includes(type);
}

/** One numbered change of an auction: its event, and the frame room members get for it. */
export interface AuctionChange {
  by: ServiceContext;
  type: AuctionEventType;
  /** Holds `auctionId`, `roomId` and `seq`, and whatever the change says. */
  data: { auctionId: string; roomId: string; seq: number } & Record<string, unknown>;
}

/**
 * The frame of a change, as the log keeps it and sockets get it: room members are end users, so the
 * auction it carries has no reserve amount (the event keeps it, for the tenant's servers).
 */
export function frameOf(change: {
  type: AuctionEventType;
  data: Record<string, unknown>;
}): Record<string, unknown> {
  return endUserFrame({ type: FRAME_TYPE[change.type], room: change.data.roomId, ...change.data });
}

/**
 * Writes a transaction's changes: their events (outbox, same transaction) and their log rows, from which
 * a reconnecting socket reads what it missed. Seqs come from the rules and are consecutive per auction.
 */
export async function recordChanges(
  tx: Queryable,
  tenantId: string,
  emitEach: EmitEach,
  changes: readonly AuctionChange[],
): Promise<void> {
  if (changes.length === 0) return;
  await tx.query(
    `insert into auction_log (tenant_id, auction_id, seq, room_id, frame, created_at)
     select $1, l.auction_id, l.seq, l.room_id, l.frame, $6
       from unnest($2::text[], $3::bigint[], $4::text[], $5::jsonb[]) as l(auction_id, seq, room_id, frame)`,
    [
      tenantId,
      changes.map((c) => c.data.auctionId),
      changes.map((c) => c.data.seq),
      changes.map((c) => c.data.roomId),
      changes.map((c) => JSON.stringify(frameOf(c))),
      new Date(changes[0]?.by.clock.now() ?? 0).toISOString(),
    ],
  );
  await emitEach(changes.map((c): GroupEvent => ({ by: c.by, type: c.type, data: c.data })));
}
