import type { Static } from 'typebox';
import type { ActorRef } from '../../core/auth/principal.ts';
import type { IncrementRow, SoftClose } from './schema/fields.ts';

/*
 * The bidding rules, as pure functions of an auction's state: the verbs load the state under the row's
 * lock, decide every bid of a group here in arrival order, and write what came out. Nothing here reads a
 * clock or a database, so every rule is tested by itself.
 */

/**
 * A bidder as the rules and the stored state hold it: the internal reference, whose `id` (the actor's row)
 * tells bidders apart. The API names it as the Actor object (`actorView`), never by that id.
 */
export type Bidder = ActorRef;
export type Increment = Static<typeof IncrementRow>;
export type SoftCloseRule = Static<typeof SoftClose>;
export type Status = 'draft' | 'scheduled' | 'live' | 'ended' | 'cancelled';
export type Outcome = 'sold' | 'unsold' | 'bought_now';

export interface Leader {
  bidId: string;
  bidder: Bidder;
  /** The leader's maximum: shown to nobody else. */
  max: number;
}

export interface AuctionState {
  status: Status;
  currency: string;
  startingPrice: number;
  reservePrice: number | null;
  buyNowPrice: number | null;
  increments: readonly Increment[];
  softClose: SoftCloseRule;
  suddenDeath: boolean;
  currentPrice: number | null;
  leader: Leader | null;
  bidCount: number;
  /** ms since epoch; set once live. */
  endsAt: number | null;
  extensions: number;
  seq: number;
  outcome: Outcome | null;
  winner: Bidder | null;
  finalPrice: number | null;
}

/** Why a bid was refused: a stable code, the HTTP error it answers with, and what to change. */
export interface Refusal {
  code:
    | 'auction_not_live'
    | 'bid_too_low'
    | 'self_outbid'
    | 'currency_mismatch'
    | 'amount_required'
    | 'amount_above_max'
    | 'buy_now_unavailable';
  error: 'conflict' | 'invalid_request';
  field: string;
  message: string;
}

export interface BidInput {
  bidId: string;
  bidder: Bidder;
  amount?: number | undefined;
  maxAmount?: number | undefined;
  currency?: string | undefined;
}

/** What an accepted bid did. */
export interface Accepted {
  ok: true;
  /**
   * The amount the bid stands at in the history: the price it made when it leads, what it offered when
   * outbid at once (its `amount`, else the minimum bid); never its maximum, which only its bidder sees.
   */
  amount: number;
  maxAmount: number;
  priceAfter: number;
  leading: boolean;
  /** The bid's seq. */
  seq: number;
  extended?: { seq: number; endsAt: number; extensions: number };
  ended?: { seq: number };
}

export type Decision = Accepted | { ok: false; refusal: Refusal };

/** The increment that applies at `price`: the row with the highest `from` at or below it. */
export function incrementAt(increments: readonly Increment[], price: number): number {
  let step = increments[0]?.increment ?? 1;
  for (const row of increments) if (row.from <= price) step = row.increment;
  return step;
}

/** The lowest bid accepted now: the starting price, or the current price plus one increment. */
export function minimumBid(state: AuctionState): number {
  const price = state.currentPrice;
  return price === null ? state.startingPrice : price + incrementAt(state.increments, price);
}

export function reserveMet(state: AuctionState): boolean {
  if (state.leader === null || state.currentPrice === null) return false;
  return state.reservePrice === null || state.currentPrice >= state.reservePrice;
}

/** Whether the auction is open to bids at `now` (live, and its end has not passed). */
export function isOpen(state: AuctionState, now: number): boolean {
  return state.status === 'live' && state.endsAt !== null && now < state.endsAt;
}

/**
 * Buy-now is offered while the auction is open, until the first bid meets the reserve (or, without a
 * reserve, until the first bid), and while the price is below it.
 */
export function buyNowAvailable(state: AuctionState, now: number): boolean {
  if (state.buyNowPrice === null || !isOpen(state, now)) return false;
  if (state.currentPrice !== null && state.currentPrice >= state.buyNowPrice) return false;
  return state.reservePrice === null ? state.bidCount === 0 : !reserveMet(state);
}

/** The HTTP error a refusal answers with: a malformed bid is invalid, any other refusal a conflict. */
export function refusalErrorOf(code: Refusal['code']): Refusal['error'] {
  return code === 'currency_mismatch' || code.startsWith('amount_') ? 'invalid_request' : 'conflict';
}

function refuse(
  code: Refusal['code'],
  message: string,
  field = '/body/amount',
): { ok: false; refusal: Refusal } {
  return { ok: false, refusal: { code, error: refusalErrorOf(code), field, message } };
}

function notLive(state: AuctionState): { ok: false; refusal: Refusal } {
  const status = state.status === 'live' ? 'past its end' : state.status;
  return refuse('auction_not_live', `the auction is ${status}; bids are taken only while it is live`, '/');
}

/**
 * Decides one bid against `state` and, when it is accepted, applies it to `state` (the caller passes its
 * own copy). Proxy bidding: the leader pays the second-highest maximum plus one increment, capped at its
 * own maximum; equal maxima go to the earlier bid; a leader raising its maximum does not raise the price;
 * a maximum that meets the reserve lifts the price to the reserve.
 */
export function decideBid(state: AuctionState, bid: BidInput, now: number): Decision {
  if (!isOpen(state, now)) return notLive(state);
  if (bid.currency !== undefined && bid.currency !== state.currency)
    return refuse(
      'currency_mismatch',
      `the auction is in ${state.currency}, the bid in ${bid.currency}`,
      '/body/currency',
    );
  if (bid.amount === undefined && bid.maxAmount === undefined)
    return refuse('amount_required', 'give amount, maxAmount or both');
  if (bid.amount !== undefined && bid.maxAmount !== undefined && bid.amount > bid.maxAmount)
    return refuse('amount_above_max', 'amount may not exceed maxAmount', '/body/maxAmount');
  const ceiling = bid.maxAmount ?? bid.amount ?? 0;
  const minimum = minimumBid(state);
  const offer = bid.amount ?? minimum;
  const leader = state.leader;

  let price: number;
  let leading: boolean;
  if (leader !== null && leader.bidder.id === bid.bidder.id) {
    if (ceiling <= leader.max)
      return refuse(
        'self_outbid',
        `you lead already with a maximum of ${leader.max}; only a higher maximum changes your bid`,
      );
    if (ceiling < minimum)
      return refuse('bid_too_low', `bid at least ${minimum} (${state.currency} minor units)`);
    // Raising one's own maximum never raises the price one pays, but it can meet the reserve.
    leader.max = ceiling;
    leader.bidId = bid.bidId;
    price = state.currentPrice ?? state.startingPrice;
    leading = true;
  } else {
    if ((bid.amount ?? ceiling) < minimum || ceiling < minimum)
      return refuse('bid_too_low', `bid at least ${minimum} (${state.currency} minor units)`);
    if (leader === null) {
      state.leader = { bidId: bid.bidId, bidder: bid.bidder, max: ceiling };
      price = offer;
      leading = true;
    } else if (ceiling > leader.max) {
      price = Math.max(offer, Math.min(ceiling, leader.max + incrementAt(state.increments, leader.max)));
      state.leader = { bidId: bid.bidId, bidder: bid.bidder, max: ceiling };
      leading = true;
    } else {
      // The leader's proxy answers: the earlier bid keeps the lead on a tie.
      price = Math.min(leader.max, ceiling + incrementAt(state.increments, ceiling));
      leading = false;
    }
  }
  price = Math.max(price, state.currentPrice ?? 0);
  const top = state.leader;
  const reserve = state.reservePrice;
  if (reserve !== null && top !== null && price < reserve && top.max >= reserve) price = reserve;
  state.currentPrice = price;
  state.bidCount += 1;
  state.seq += 1;
  const accepted: Accepted = {
    ok: true,
    amount: leading ? price : offer,
    maxAmount: ceiling,
    priceAfter: price,
    leading,
    seq: state.seq,
  };
  const extended = softCloseAfterBid(state, now);
  if (extended !== undefined) accepted.extended = extended;
  return accepted;
}

/** A bid accepted inside the window moves the end (never backwards), up to the cap; never in sudden death. */
function softCloseAfterBid(state: AuctionState, now: number): Accepted['extended'] {
  const rule = state.softClose;
  const endsAt = state.endsAt;
  if (state.suddenDeath || endsAt === null || rule.windowSeconds <= 0) return undefined;
  if (endsAt - now > rule.windowSeconds * 1000 || state.extensions >= rule.maxExtensions) return undefined;
  const next = rule.mode === 'extend' ? endsAt + rule.extendSeconds * 1000 : now + rule.extendSeconds * 1000;
  if (next <= endsAt) return undefined;
  state.endsAt = next;
  state.extensions += 1;
  state.seq += 1;
  return { seq: state.seq, endsAt: next, extensions: state.extensions };
}

/** Buy-now: the auction ends at once, sold to the buyer at the buy-now price. */
export function decideBuyNow(state: AuctionState, bid: BidInput, now: number): Decision {
  if (!isOpen(state, now)) return notLive(state);
  const price = state.buyNowPrice;
  if (price === null || !buyNowAvailable(state, now))
    return refuse(
      'buy_now_unavailable',
      price === null
        ? 'this auction offers no buy-now price'
        : 'buy-now is no longer offered: a bid has met the reserve',
      '/',
    );
  state.leader = { bidId: bid.bidId, bidder: bid.bidder, max: price };
  state.currentPrice = price;
  state.bidCount += 1;
  state.seq += 1;
  const seq = state.seq;
  endAuction(state, 'bought_now');
  return {
    ok: true,
    amount: price,
    maxAmount: price,
    priceAfter: price,
    leading: true,
    seq,
    ended: { seq: state.seq },
  };
}

/** The end: sold to the leader when the reserve is met, else unsold (its bids are kept). */
export function endAuction(state: AuctionState, outcome?: Outcome): void {
  const decided = outcome ?? (reserveMet(state) ? 'sold' : 'unsold');
  state.status = 'ended';
  state.outcome = decided;
  state.winner = decided === 'unsold' ? null : (state.leader?.bidder ?? null);
  state.finalPrice = decided === 'unsold' ? null : state.currentPrice;
  state.seq += 1;
}

/** The lifecycle in one place: which status may become which. */
const TRANSITIONS: Record<Status, readonly Status[]> = {
  draft: ['scheduled', 'live', 'cancelled'],
  scheduled: ['draft', 'live', 'cancelled'],
  live: ['ended', 'cancelled'],
  ended: [],
  cancelled: [],
};

export function canTransition(from: Status, to: Status): boolean {
  return TRANSITIONS[from].includes(to);
}

export function isEditable(status: Status): boolean {
  return status === 'draft' || status === 'scheduled';
}
