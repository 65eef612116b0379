import type { Static } from 'typebox';
import { roomLimit } from '../../../core/auth/principal.ts';
import type { ServiceContext } from '../../../core/context.ts';
import { AppError, type ErrorDetail, NotFound } from '../../../core/http/errors.ts';
import { actorView } from '../../../core/tenancy/actors.ts';
import { type AuctionRow, toAuction } from '../auction-row.ts';
import type { AuctionChange } from '../changes.ts';
import { newId } from '../ids.ts';
import { endedChange } from '../lifecycle/transitions.ts';
import {
  type AuctionState,
  type Bidder,
  type Decision,
  decideBid,
  decideBuyNow,
  endAuction,
  minimumBid,
  type Refusal,
} from '../rules.ts';
import type { BidResult, PlaceBidArguments } from '../schema/bid.ts';

/** A retry's answer: the outcome first recorded for its (bidder, clientBidId). */
export interface FirstResult {
  bidderId: string;
  clientBidId: string;
  outcome: Outcome;
}

/*
 * Deciding a group of bids on one auction, in order, against the auction's state: what each bid answers,
 * and the rows and changes the group's statement writes (group-write.ts, which also states the ordering
 * rules both write paths keep).
 */

export type PlacedBid = Static<typeof BidResult>;

export interface QueuedBid {
  ctx: ServiceContext;
  kind: 'bid' | 'buy_now';
  input: Static<typeof PlaceBidArguments>;
}

/** A group's answer to one of its bids: the bid, or the refusal it answers with. */
export type Outcome = { ok: true; placed: PlacedBid } | { ok: false; error: AppError };

/** A refusal as the API answers it: the rule's code first, then where the auction stands. */
export function refusalError(refusal: Refusal, state: AuctionState): AppError {
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
  bidders: readonly Bidder[],
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
    const bidder = bidders[i] as Bidder;
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
      bidder: actorView(bidder),
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
