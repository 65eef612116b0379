import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import type { Queryable } from '../../../core/db/database.ts';
import type { GroupWriter } from '../../../core/db/group-commit.ts';
import { AppError, type ErrorDetail } from '../../../core/http/errors.ts';
import { newId } from '../../../core/ids.ts';
import { type AuctionView, lockAuction, saveState, toAuction } from '../auction-row.ts';
import { type AuctionChange, recordChanges } from '../changes.ts';
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
import type { BidResult, BuyNowInput, PlaceBidInput } from '../schema.ts';
import { checkBidder, resolveBidder } from './bidder.ts';
import { readAuction } from './get-auction.ts';
import { endedChange } from './lifecycle.ts';

export type PlacedBid = Static<typeof BidResult>;

interface QueuedBid {
  ctx: ServiceContext;
  kind: 'bid' | 'buy_now';
  input: Static<typeof PlaceBidInput>;
}

/** A group's answer to one of its bids: the bid, or the refusal it answers with. */
type Outcome = { ok: true; placed: PlacedBid } | { ok: false; error: AppError };

/** Bids on one auction are group-committed; see `placeBid`. */
const BID_WRITER: GroupWriter<QueuedBid, Outcome> = { writeGroup, maxGroup: 256 };

/**
 * Places a bid. Bids on one auction go through the app's group-commit queue: while one transaction holds
 * the auction's row, later bids wait, and the next transaction decides all of them one by one, in arrival
 * order, against the state each left. Across instances the row lock orders the groups, so bids are decided
 * in the order they commit.
 */
export async function placeBid(ctx: ServiceContext, input: Static<typeof PlaceBidInput>): Promise<PlacedBid> {
  return submit(ctx, 'bid', input);
}

/** Buys at the buy-now price while it is offered: the auction ends at once. */
export async function buyNow(ctx: ServiceContext, input: Static<typeof BuyNowInput>): Promise<PlacedBid> {
  return submit(ctx, 'buy_now', input);
}

async function submit(
  ctx: ServiceContext,
  kind: QueuedBid['kind'],
  input: Static<typeof PlaceBidInput>,
): Promise<PlacedBid> {
  // What can refuse a bid without the auction's lock is checked before it joins a group.
  checkBidder(ctx, input.actor);
  await readAuction(ctx, input.auctionId);
  const outcome = await ctx.groupCommit
    .queue('auctions.bid', BID_WRITER)
    .submit(`${ctx.tenantId}/${input.auctionId}`, { ctx, kind, input });
  if (!outcome.ok) throw outcome.error;
  const { auction } = outcome.placed;
  // A moved or reached end changes when the scheduler must look next.
  if (auction.extensions > 0 || auction.status === 'ended') ctx.workers.wake('auctions');
  return outcome.placed;
}

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
  const where = price === null ? 'no bid yet' : `current price ${price} ${state.currency}`;
  return new AppError(refusal.error, `${refusal.message} (${where})`, { details });
}

interface FirstResult {
  bidderId: string;
  clientBidId: string;
  outcome: Outcome;
}

/** The bids and refusals already recorded under the group's clientBidIds: a retry gets the first result. */
async function earlierResults(
  tx: Queryable,
  auctionId: string,
  clientBidIds: string[],
  auction: AuctionView,
  state: AuctionState,
): Promise<FirstResult[]> {
  if (clientBidIds.length === 0) return [];
  const { rows } = await tx.query<{
    id: string;
    seq: number | string;
    kind: 'bid' | 'buy_now';
    bidder_actor_id: string;
    bidder: Actor;
    amount: number | string;
    max_amount: number | string;
    price_after: number | string;
    leading_after: boolean;
    client_bid_id: string;
    created_at: Date | string;
  }>(
    `select id, seq, kind, bidder_actor_id::text as bidder_actor_id, bidder, amount, max_amount, price_after,
            leading_after, client_bid_id, created_at
       from auction_bids where auction_id = $1 and client_bid_id = any($2::text[])`,
    [auctionId, clientBidIds],
  );
  const { rows: refused } = await tx.query<{
    bidder_actor_id: string;
    client_bid_id: string;
    code: Refusal['code'];
    message: string;
    current_price: number | string | null;
  }>(
    `select distinct on (bidder_actor_id, client_bid_id) bidder_actor_id::text as bidder_actor_id,
            client_bid_id, code, message, current_price
       from auction_rejections where auction_id = $1 and client_bid_id = any($2::text[])
      order by bidder_actor_id, client_bid_id, id`,
    [auctionId, clientBidIds],
  );
  return [
    ...rows.map((r) => ({
      bidderId: r.bidder_actor_id,
      clientBidId: r.client_bid_id,
      outcome: {
        ok: true as const,
        placed: {
          bid: {
            id: r.id,
            auctionId,
            seq: Number(r.seq),
            kind: r.kind,
            bidder: r.bidder,
            amount: Number(r.amount),
            maxAmount: Number(r.max_amount),
            priceAfter: Number(r.price_after),
            leading: r.leading_after,
            clientBidId: r.client_bid_id,
            createdAt: new Date(r.created_at).toISOString(),
          },
          auction,
        },
      },
    })),
    ...refused.map((r) => {
      const first = { ...state, currentPrice: r.current_price === null ? null : Number(r.current_price) };
      const error = refusalError(
        { code: r.code, error: errorOf(r.code), field: '/body/amount', message: r.message },
        first,
      );
      return {
        bidderId: r.bidder_actor_id,
        clientBidId: r.client_bid_id,
        outcome: { ok: false as const, error },
      };
    }),
  ];
}

function errorOf(code: Refusal['code']): Refusal['error'] {
  return code === 'currency_mismatch' || code.startsWith('amount_') ? 'invalid_request' : 'conflict';
}

/**
 * One transaction for a group of bids on one auction (in `ctx` of the first): lock the row, end it first
 * if its end has passed, decide each bid in order, then write the bids, refusals, log and events, and the
 * new state guarded by the seq it was decided on.
 */
async function writeGroup(group: readonly QueuedBid[]): Promise<Outcome[]> {
  const first = group[0];
  if (first === undefined) return [];
  const { ctx } = first;
  const auctionId = first.input.auctionId;
  return inTenant(ctx, async (tx, _emit, emitEach) => {
    const now = ctx.clock.now();
    const loaded = await lockAuction(tx, auctionId);
    const { row, state } = loaded;
    const startSeq = state.seq;
    const changes: AuctionChange[] = [];
    let endedAt: number | undefined;
    if (state.status === 'live' && state.endsAt !== null && state.endsAt <= now) {
      // The end has passed: whoever sees it first ends the auction, then refuses the bids.
      endAuction(state);
      endedAt = now;
      changes.push(endedChange(ctx, row, state, now));
    }
    const bidders: Actor[] = [];
    for (const item of group) bidders.push(await resolveBidder(item.ctx, tx, item.input.actor));
    const clientIds = group.flatMap((item) =>
      item.input.clientBidId === undefined ? [] : [item.input.clientBidId],
    );
    const firsts = await earlierResults(tx, auctionId, clientIds, toAuction(row, now, state), state);
    const firstOf = (bidderId: string, clientBidId: string | undefined) =>
      clientBidId === undefined
        ? undefined
        : firsts.find((f) => f.bidderId === bidderId && f.clientBidId === clientBidId);

    const outcomes: Outcome[] = [];
    const bids: unknown[][] = [[], [], [], [], [], [], [], [], [], [], [], []];
    const refusals: unknown[][] = [[], [], [], [], [], [], [], []];
    const at = new Date(now).toISOString();
    for (const [i, item] of group.entries()) {
      const bidder = bidders[i] as Actor;
      const { input } = item;
      const earlier = firstOf(bidder.id, input.clientBidId);
      if (earlier !== undefined) {
        outcomes.push(earlier.outcome);
        continue;
      }
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
        for (const [column, value] of [
          bidder.id,
          input.amount ?? null,
          input.maxAmount ?? null,
          r.code,
          r.message,
          state.currentPrice,
          input.clientBidId ?? null,
          at,
        ].entries())
          refusals[column]?.push(value);
        if (input.clientBidId !== undefined)
          firsts.push({ bidderId: bidder.id, clientBidId: input.clientBidId, outcome: { ok: false, error } });
        continue;
      }
      for (const [column, value] of [
        bidId,
        decision.seq,
        item.kind,
        bidder.id,
        JSON.stringify(bidder),
        decision.amount,
        decision.maxAmount,
        decision.priceAfter,
        decision.leading,
        input.clientBidId ?? null,
        at,
        auctionId,
      ].entries())
        bids[column]?.push(value);
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
      const placed: PlacedBid = { bid: { ...placedBid, maxAmount: decision.maxAmount }, auction };
      outcomes.push({ ok: true, placed });
      if (input.clientBidId !== undefined)
        firsts.push({ bidderId: bidder.id, clientBidId: input.clientBidId, outcome: { ok: true, placed } });
    }

    if (state.seq !== startSeq) {
      await saveState(tx, auctionId, startSeq, state, now, endedAt === undefined ? {} : { endedAt });
    }
    if ((bids[0]?.length ?? 0) > 0) {
      await tx.query(
        `insert into auction_bids (tenant_id, id, seq, kind, bidder_actor_id, bidder, amount, max_amount,
           price_after, leading_after, client_bid_id, created_at, auction_id)
         select $1, * from unnest($2::text[], $3::bigint[], $4::text[], $5::uuid[], $6::jsonb[], $7::bigint[],
           $8::bigint[], $9::bigint[], $10::boolean[], $11::text[], $12::timestamptz[], $13::text[])`,
        [ctx.tenantId, ...bids],
      );
    }
    if ((refusals[0]?.length ?? 0) > 0) {
      await tx.query(
        `insert into auction_rejections (tenant_id, auction_id, bidder_actor_id, amount, max_amount, code, message,
           current_price, client_bid_id, created_at)
         select $1, $2, * from unnest($3::uuid[], $4::bigint[], $5::bigint[], $6::text[], $7::text[], $8::bigint[],
           $9::text[], $10::timestamptz[])`,
        [ctx.tenantId, auctionId, ...refusals],
      );
    }
    await recordChanges(tx, ctx.tenantId, emitEach, changes);
    return outcomes;
  });
}
