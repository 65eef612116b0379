import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import { cursorNumber, decodeCursor, encodeCursor } from '../../../core/http/cursor.ts';
import type { Actor } from '../rules.ts';
import type { BidPage, ListBidsInput } from '../schema.ts';
import { readAuction } from './get-auction.ts';

interface BidRow {
  id: string;
  seq: number | string;
  kind: 'bid' | 'buy_now';
  bidder: Actor;
  amount: number | string;
  price_after: number | string;
  leading_after: boolean;
  client_bid_id: string | null;
  created_at: Date | string;
}

/** An auction's accepted bids, newest first; no bidder's maximum is shown. */
export async function listBids(
  ctx: ServiceContext,
  input: Static<typeof ListBidsInput>,
): Promise<Static<typeof BidPage>> {
  await readAuction(ctx, input.auctionId);
  const limit = input.limit ?? 50;
  const before = cursorNumber(decodeCursor(input.cursor)?.seq);
  const { rows } = await tenantRead<BidRow>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select id, seq, kind, bidder, amount, price_after, leading_after, client_bid_id, created_at
       from auction_bids where auction_id = $1 ${before === undefined ? '' : 'and seq < $3::bigint'}
      order by seq desc limit $2`,
    before === undefined ? [input.auctionId, limit + 1] : [input.auctionId, limit + 1, before],
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map((r) => ({
      id: r.id,
      auctionId: input.auctionId,
      seq: Number(r.seq),
      kind: r.kind,
      bidder: r.bidder,
      amount: Number(r.amount),
      priceAfter: Number(r.price_after),
      leading: r.leading_after,
      clientBidId: r.client_bid_id,
      createdAt: new Date(r.created_at).toISOString(),
    })),
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor({ seq: String(last.seq) }) : null,
  };
}
