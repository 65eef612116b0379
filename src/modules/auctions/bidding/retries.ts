import { roomLimit } from '../../../core/auth/principal.ts';
import { isoTime, type Queryable } from '../../../core/db/database.ts';
import { actorView } from '../../../core/tenancy/actors.ts';
import type { AuctionRow, AuctionView } from '../auction-row.ts';
import { type AuctionState, type Bidder, type Refusal, refusalErrorOf } from '../rules.ts';
import { type FirstResult, type QueuedBid, refusalError } from './decide-group.ts';

/*
 * Retries: a bid sent again with the same clientBidId by the same bidder answers with its first result.
 * The (bidder, clientBidId) keys are claimed in `auction_client_bids` (migration 0093) on the locked path
 * (rules 3 and 6 of group-write.ts).
 */

/** The first result of a (bidder, clientBidId): what a retry answers with. */
export interface EarlierBid {
  id: string;
  seq: number;
  kind: 'bid' | 'buy_now';
  bidder: Bidder;
  amount: number;
  maxAmount: number;
  priceAfter: number;
  leading: boolean;
  clientBidId: string;
  createdAt: string;
}

export interface EarlierRefusal {
  bidderId: string;
  clientBidId: string;
  code: Refusal['code'];
  message: string;
  currentPrice: number | null;
}

/** The results recorded before under a group's clientBidIds, as the answers their retries get. */
export function earlierResults(
  bids: readonly EarlierBid[],
  refusals: readonly EarlierRefusal[],
  auctionId: string,
  auction: AuctionView,
  state: AuctionState,
): FirstResult[] {
  const results: FirstResult[] = bids.map((b) => ({
    bidderId: b.bidder.id,
    clientBidId: b.clientBidId,
    outcome: {
      ok: true as const,
      placed: {
        bid: {
          id: b.id,
          auctionId,
          seq: Number(b.seq),
          kind: b.kind,
          bidder: actorView(b.bidder),
          amount: Number(b.amount),
          maxAmount: Number(b.maxAmount),
          priceAfter: Number(b.priceAfter),
          leading: b.leading,
          clientBidId: b.clientBidId,
          createdAt: b.createdAt,
        },
        auction,
      },
    },
  }));
  for (const r of refusals) {
    if (results.some((f) => f.bidderId === r.bidderId && f.clientBidId === r.clientBidId)) continue;
    const then = { ...state, currentPrice: r.currentPrice === null ? null : Number(r.currentPrice) };
    const error = refusalError(
      { code: r.code, error: refusalErrorOf(r.code), field: '/body/amount', message: r.message },
      then,
    );
    results.push({ bidderId: r.bidderId, clientBidId: r.clientBidId, outcome: { ok: false, error } });
  }
  return results;
}

/**
 * Claims a group's (bidder, clientBidId) keys for the auction, answering those recorded before: the
 * retries. Each key is a probe of the table's primary key, its only index, so no plan depends on the
 * planner's statistics. (A lookup by clientBidId among the auction's bids, with statistics older than a
 * hot auction, read every bid of it: 1.7 ms a group at 5,900 bids, growing with them.)
 */
const CLAIM_SQL = `
insert into auction_client_bids (tenant_id, auction_id, bidder_actor_id, client_bid_id)
select $1, $2, * from unnest($3::uuid[], $4::text[])
on conflict do nothing
returning bidder_actor_id::text as "bidderId", client_bid_id as "clientBidId"`;

/** The bids and refusals recorded under some clientBidIds of the auction: what retries answer with. */
const EARLIER_SQL = `
select
  (select coalesce(json_agg(json_build_object(
      'id', b.id, 'seq', b.seq, 'kind', b.kind, 'bidder', b.bidder, 'amount', b.amount,
      'maxAmount', b.max_amount, 'priceAfter', b.price_after, 'leading', b.leading_after,
      'clientBidId', b.client_bid_id, 'createdAt', ${isoTime('b.created_at')})), '[]'::json)
     from auction_bids b
     where b.tenant_id = $1 and b.auction_id = $2 and b.client_bid_id = any($3::text[])) as bids,
  (select coalesce(json_agg(json_build_object(
      'bidderId', r.bidder_actor_id::text, 'clientBidId', r.client_bid_id, 'code', r.code,
      'message', r.message, 'currentPrice', r.current_price) order by r.id), '[]'::json)
     from auction_rejections r
     where r.tenant_id = $1 and r.auction_id = $2 and r.client_bid_id = any($3::text[])) as refusals`;

/**
 * Under the auction's lock: claims the group's keys, and reads the first results of the keys claimed
 * before (retries, rare), so that they answer as they did. A key claimed before whose result is gone (a
 * refusal past its retention) is decided again.
 */
export async function claimKeys(
  tx: Queryable,
  tenantId: string,
  row: AuctionRow,
  group: readonly QueuedBid[],
  bidders: readonly Bidder[],
): Promise<{ bids: EarlierBid[]; refusals: EarlierRefusal[] } | undefined> {
  const keys = new Map<string, { bidderId: string; clientBidId: string }>();
  for (const [i, item] of group.entries()) {
    const { clientBidId } = item.input;
    const onlyRoom = roomLimit(item.ctx.principal);
    // A token limited to another room is answered "not found", which is no result to keep.
    if (clientBidId === undefined || (onlyRoom !== undefined && onlyRoom !== row.room_id)) continue;
    const bidderId = (bidders[i] as Bidder).id;
    keys.set(`${bidderId} ${clientBidId}`, { bidderId, clientBidId });
  }
  if (keys.size === 0) return undefined;
  const claimed = await tx.query<{ bidderId: string; clientBidId: string }>(CLAIM_SQL, [
    tenantId,
    row.id,
    [...keys.values()].map((k) => k.bidderId),
    [...keys.values()].map((k) => k.clientBidId),
  ]);
  for (const k of claimed.rows) keys.delete(`${k.bidderId} ${k.clientBidId}`);
  if (keys.size === 0) return undefined;
  const { rows } = await tx.query<{ bids: EarlierBid[]; refusals: EarlierRefusal[] }>(EARLIER_SQL, [
    tenantId,
    row.id,
    [...new Set([...keys.values()].map((k) => k.clientBidId))],
  ]);
  return rows[0];
}
