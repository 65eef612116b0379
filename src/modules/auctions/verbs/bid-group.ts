import type { Static } from 'typebox';
import { roomLimit } from '../../../core/auth/principal.ts';
import type { ServiceContext } from '../../../core/context.ts';
import type { Bind, OwnStatement } from '../../../core/events/store.ts';
import { AppError, type ErrorDetail, NotFound } from '../../../core/http/errors.ts';
import { newId } from '../../../core/ids.ts';
import { type AuctionRow, type AuctionView, stateParams, toAuction } from '../auction-row.ts';
import { type AuctionChange, frameOf } from '../changes.ts';
import {
  type Actor,
  type AuctionState,
  type Decision,
  decideBid,
  decideBuyNow,
  endAuction,
  minimumBid,
  type Refusal,
} from '../rules.ts';
import type { BidResult, PlaceBidInput } from '../schema.ts';
import { endedChange } from './lifecycle.ts';

/*
 * A group of bids on one auction: deciding them in order against the auction's state (`decideGroup`), and
 * the one statement that writes what they decided (`groupWrite`). `place-bid.ts` runs them, under the
 * auction's lock or on the state this instance wrote last.
 */

export type PlacedBid = Static<typeof BidResult>;

export interface QueuedBid {
  ctx: ServiceContext;
  kind: 'bid' | 'buy_now';
  input: Static<typeof PlaceBidInput>;
}

/** A group's answer to one of its bids: the bid, or the refusal it answers with. */
export type Outcome = { ok: true; placed: PlacedBid } | { ok: false; error: AppError };

/** A refusal as the API answers it: the rule's code first, then where the auction stands. */
function refusalError(refusal: Refusal, state: AuctionState): AppError {
  const details: ErrorDetail[] = [{ field: refusal.field, message: refusal.message, code: refusal.code }];
  const price = state.currentPrice;
  details.push({
    field: '/auction/currentPrice',
    message: price === null ? 'no bid yet' : String(price),
    code: 'current_price',
  });
  if (state.status === 'live') {
    details.push({ field: '/auction/minimumBid', message: String(minimumBid(state)), code: 'minimum_bid' });
  }
  const where = price === null ? 'no bid yet' : `the current price is ${price}`;
  return new AppError(refusal.error, `${refusal.message}; ${where}`, { details });
}

/** The first result of a (bidder, clientBidId): what a retry answers with. */
export interface FirstResult {
  bidderId: string;
  clientBidId: string;
  outcome: Outcome;
}

export interface EarlierBid {
  id: string;
  seq: number;
  kind: 'bid' | 'buy_now';
  bidder: Actor;
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
          bidder: b.bidder,
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
      { code: r.code, error: errorOf(r.code), field: '/body/amount', message: r.message },
      then,
    );
    results.push({ bidderId: r.bidderId, clientBidId: r.clientBidId, outcome: { ok: false, error } });
  }
  return results;
}

function errorOf(code: Refusal['code']): Refusal['error'] {
  return code === 'currency_mismatch' || code.startsWith('amount_') ? 'invalid_request' : 'conflict';
}

/** What a group decided: one outcome per bid, and the rows and changes to write. */
export interface DecidedGroup {
  outcomes: Outcome[];
  bids: Record<string, unknown>[];
  refusals: Record<string, unknown>[];
  changes: AuctionChange[];
  /** The (bidder, clientBidId) of each bid decided here (not answered as a retry), accepted or refused. */
  keys: { bidderId: string; clientBidId: string }[];
  /** When the auction ended in this group (its end had passed, or a bid ended it). */
  endedAt: number | undefined;
  at: string;
}

/**
 * Decides a group's bids one by one, in arrival order, against `state` (changed in place to where the
 * last one left it): first the auction's end when it has passed, then each bid, a retry answering with
 * its first result (`firsts`, which collects this group's too).
 */
export function decideGroup(
  group: readonly QueuedBid[],
  row: AuctionRow,
  state: AuctionState,
  bidders: readonly Actor[],
  firsts: FirstResult[],
  now: number,
): DecidedGroup {
  const first = group[0];
  const auctionId = row.id;
  const changes: AuctionChange[] = [];
  let endedAt: number | undefined;
  if (first !== undefined && state.status === 'live' && state.endsAt !== null && state.endsAt <= now) {
    // The end has passed: whoever sees it first ends the auction, then refuses the bids.
    endAuction(state);
    endedAt = now;
    changes.push(endedChange(first.ctx, row, state, now));
  }
  const outcomes: Outcome[] = [];
  const bids: Record<string, unknown>[] = [];
  const refusals: Record<string, unknown>[] = [];
  const keys: DecidedGroup['keys'] = [];
  const at = new Date(now).toISOString();
  for (const [i, item] of group.entries()) {
    const { input } = item;
    const onlyRoom = roomLimit(item.ctx.principal);
    if (onlyRoom !== undefined && onlyRoom !== row.room_id) {
      outcomes.push({ ok: false, error: new NotFound('auction', auctionId) });
      continue;
    }
    const bidder = bidders[i] as Actor;
    const earlier =
      input.clientBidId === undefined
        ? undefined
        : firsts.find((f) => f.bidderId === bidder.id && f.clientBidId === input.clientBidId);
    if (earlier !== undefined) {
      outcomes.push(earlier.outcome);
      continue;
    }
    if (input.clientBidId !== undefined) keys.push({ bidderId: bidder.id, clientBidId: input.clientBidId });
    const bidId = newId('bid', now);
    const bid = {
      bidId,
      bidder,
      amount: input.amount,
      maxAmount: input.maxAmount,
      currency: input.currency,
    };
    const decision: Decision =
      item.kind === 'bid' ? decideBid(state, bid, now) : decideBuyNow(state, bid, now);
    if (!decision.ok) {
      const error = refusalError(decision.refusal, state);
      outcomes.push({ ok: false, error });
      const r = decision.refusal;
      refusals.push({
        bidder_actor_id: bidder.id,
        amount: input.amount ?? null,
        max_amount: input.maxAmount ?? null,
        code: r.code,
        message: r.message,
        current_price: state.currentPrice,
        client_bid_id: input.clientBidId ?? null,
        created_at: at,
      });
      if (input.clientBidId !== undefined)
        firsts.push({ bidderId: bidder.id, clientBidId: input.clientBidId, outcome: { ok: false, error } });
      continue;
    }
    bids.push({
      id: bidId,
      seq: decision.seq,
      kind: item.kind,
      bidder_actor_id: bidder.id,
      bidder,
      amount: decision.amount,
      max_amount: decision.maxAmount,
      price_after: decision.priceAfter,
      leading_after: decision.leading,
      client_bid_id: input.clientBidId ?? null,
      created_at: at,
    });
    const auction = { ...toAuction(row, now, state), updatedAt: at };
    const placedBid = {
      id: bidId,
      auctionId,
      seq: decision.seq,
      kind: item.kind,
      bidder,
      amount: decision.amount,
      priceAfter: decision.priceAfter,
      leading: decision.leading,
      clientBidId: input.clientBidId ?? null,
      createdAt: at,
    };
    changes.push({
      by: item.ctx,
      type: 'auction.bid.placed',
      data: {
        auctionId,
        roomId: row.room_id,
        seq: decision.seq,
        bid: placedBid,
        currency: state.currency,
        currentPrice: auction.currentPrice,
        minimumBid: auction.minimumBid,
        leadingBid: auction.leadingBid,
        bidCount: auction.bidCount,
        reserveMet: auction.reserveMet,
        buyNowAvailable: auction.buyNowAvailable,
        endsAt: auction.endsAt,
      },
    });
    if (decision.extended !== undefined) {
      changes.push({
        by: item.ctx,
        type: 'auction.extended',
        data: {
          auctionId,
          roomId: row.room_id,
          seq: decision.extended.seq,
          endsAt: new Date(decision.extended.endsAt).toISOString(),
          extensions: decision.extended.extensions,
        },
      });
    }
    if (decision.ended !== undefined) {
      endedAt = now;
      changes.push(endedChange(item.ctx, row, state, now, decision.ended.seq));
    }
    // A bid that ended the auction (buy-now, or the price reaching buy-now) answers with its end time.
    const answered = decision.ended === undefined ? auction : { ...auction, endedAt: at };
    const placed: PlacedBid = { bid: { ...placedBid, maxAmount: decision.maxAmount }, auction: answered };
    outcomes.push({ ok: true, placed });
    if (input.clientBidId !== undefined)
      firsts.push({ bidderId: bidder.id, clientBidId: input.clientBidId, outcome: { ok: true, placed } });
  }
  return { outcomes, bids, refusals, changes, keys, endedAt, at };
}

/**
 * How a group's statement knows the auction was not moved by another writer since its state was read:
 * - `locked`: the state was read under the row's lock in the same transaction; nothing to check.
 * - `unlocked`: the state is what this instance wrote last, and the statement runs on its own. It goes
 *   through only while the row is still the version that write left (`version`, its `xmin`: any update
 *   makes a new one, an operator's by hand too) and none of its bids' (bidder, clientBidId) keys was
 *   recorded before (a retry must get its first result; `auction_client_bids`, migration 0093). Otherwise
 *   it fails whole, events and all, through the function `auction_moved` (SQLSTATE `SVA01`, migration
 *   0092).
 */
export type GroupGuard = { kind: 'locked' } | { kind: 'unlocked'; version: string };

/** The guarded update of the auction's state, as a CTE of `groupWrite`. */
function saveState(
  bind: Bind,
  state: AuctionState,
  endedAtMs: number | undefined,
  where: { id: string; from: string; at: string; unmoved: string },
): string {
  const [
    status,
    price,
    leaderBid,
    leaderMax,
    leader,
    bidCount,
    endsAt,
    extensions,
    seq,
    outcome,
    winner,
    final,
  ] = stateParams(state).map(bind);
  const endedAt = bind(endedAtMs === undefined ? null : new Date(endedAtMs).toISOString());
  const { id, from, at, unmoved } = where;
  return `update auctions set status = ${status}, current_price = ${price}, leader_bid_id = ${leaderBid},
      leader_max = ${leaderMax}, leader = ${leader}, bid_count = ${bidCount}, ends_at = ${endsAt},
      extensions = ${extensions}, seq = ${seq}, outcome = ${outcome}, winner = ${winner},
      final_price = ${final}, ended_at = coalesce(${endedAt}, ended_at), updated_at = ${at}
    where id = ${id} and seq = ${from} and ${seq}::bigint <> ${from}::bigint${unmoved}
    returning xmin::text as version`;
}

/** The SQLSTATE of `auction_moved`: an unlocked group's state was no longer the auction's. */
export const AUCTION_MOVED = 'SVA01';

/**
 * Everything a group decided, in one statement with its events (`writeWithEvents` or `tenantWrite`): the
 * auction's new state (guarded by the seq it was decided on), the accepted bids, the refusals and the log
 * rows. Each part is skipped when it has no rows. The rows travel as three JSON arrays of records (one
 * `JSON.stringify` each), not as a parameter array per column, which the driver serialised and escaped
 * element by element.
 */
export function groupWrite(
  auctionId: string,
  startSeq: number,
  state: AuctionState,
  guard: GroupGuard,
  decided: DecidedGroup & { tenantId: string; roomId: string },
): OwnStatement {
  return (bind) => {
    const id = bind(auctionId);
    const tenant = bind(decided.tenantId);
    const at = bind(decided.at);
    const from = bind(startSeq);
    const unmoved = guard.kind === 'unlocked' ? ` and xmin = ${bind(guard.version)}::xid` : '';
    // Under the lock the state is written when it moved. Unlocked, the row is also what checks the group:
    // updated when the state moved, read (a group of refusals) when it did not. (The state's parameters
    // are bound only when written: PostgreSQL refuses a parameter the statement does not use.) The read
    // takes a key-share lock so that, like the update, it waits for a locked group before the keys below
    // are inserted: see the final select.
    const saved =
      state.seq !== startSeq || guard.kind === 'locked'
        ? saveState(bind, state, decided.endedAt, { id, from, at, unmoved })
        : `select xmin::text as version from auctions where id = ${id} and seq = ${from}${unmoved}
           for key share`;
    const parts: [string, string][] = [
      ['saved', saved],
      [
        'bids',
        `insert into auction_bids (tenant_id, auction_id, id, seq, kind, bidder_actor_id, bidder, amount,
            max_amount, price_after, leading_after, client_bid_id, created_at)
        select ${tenant}, ${id}, * from jsonb_to_recordset(${bind(JSON.stringify(decided.bids))}::jsonb)
          as b(id text, seq bigint, kind text, bidder_actor_id uuid, bidder jsonb, amount bigint,
               max_amount bigint, price_after bigint, leading_after boolean, client_bid_id text,
               created_at timestamptz)`,
      ],
      [
        'refused',
        `insert into auction_rejections (tenant_id, auction_id, bidder_actor_id, amount, max_amount, code,
            message, current_price, client_bid_id, created_at)
        select ${tenant}, ${id}, * from jsonb_to_recordset(${bind(JSON.stringify(decided.refusals))}::jsonb)
          as r(bidder_actor_id uuid, amount bigint, max_amount bigint, code text, message text,
               current_price bigint, client_bid_id text, created_at timestamptz)`,
      ],
      [
        'logged',
        `insert into auction_log (tenant_id, auction_id, room_id, seq, frame, created_at)
        select ${tenant}, ${id}, ${bind(decided.roomId)}, (l.frame->>'seq')::bigint, l.frame, ${at}
          from jsonb_array_elements(${bind(JSON.stringify(decided.changes.map(frameOf)))}::jsonb) as l(frame)`,
      ],
    ];
    // Under the lock the keys were claimed before the group was decided (place-bid.ts, `claimKeys`).
    const keys = guard.kind === 'unlocked' ? decided.keys : [];
    if (keys.length > 0) {
      // A key recorded before is not inserted again, and the group fails (below): that bid is a retry,
      // decided again under the lock, where its first result is found.
      parts.push([
        'keyed',
        `insert into auction_client_bids (tenant_id, auction_id, bidder_actor_id, client_bid_id)
        select ${tenant}, ${id}, * from unnest(${bind(keys.map((k) => k.bidderId))}::uuid[],
                                              ${bind(keys.map((k) => k.clientBidId))}::text[])
        on conflict do nothing
        returning 1`,
      ]);
    }
    // Unlocked, the statement answers the row's new version, or fails: the row moved, or a key was there.
    // The row is taken before the keys (`saved` is read first): a locked group of another instance takes
    // the row, then claims its keys, and the opposite order would deadlock against it when both hold one
    // key (a retry racing its original).
    const fail = `auction_moved(${id}, ${from})`;
    const version = '(select version from saved)';
    const checked =
      keys.length === 0
        ? `coalesce(${version}, ${fail})`
        : `case when ${version} is null then ${fail}
                when (select count(*) from keyed) <> ${keys.length} then ${fail}
                else ${version} end`;
    return {
      with: parts,
      sql:
        guard.kind === 'locked'
          ? 'select (select count(*) from saved)::int as saved, (select version from saved) as version'
          : `select 1 as saved, ${checked} as version`,
    };
  };
}
