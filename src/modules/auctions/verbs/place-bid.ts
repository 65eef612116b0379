import type { Static } from 'typebox';
import { roomLimit } from '../../../core/auth/principal.ts';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { isoTime } from '../../../core/db/database.ts';
import type { GroupWriter } from '../../../core/db/group-commit.ts';
import type { OwnStatement } from '../../../core/events/store.ts';
import { AppError, type ErrorDetail, NotFound } from '../../../core/http/errors.ts';
import { newId } from '../../../core/ids.ts';
import {
  AUCTION_COLUMNS,
  type AuctionRow,
  type AuctionView,
  stateOf,
  stateParams,
  toAuction,
} from '../auction-row.ts';
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
import type { BidResult, BuyNowInput, PlaceBidInput } from '../schema.ts';
import { actorParams, actorsCte, assignBidders, checkBidder, namedActors } from './bidder.ts';
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
  const outcome = await ctx.groupCommit
    .queue('auctions.bid', BID_WRITER)
    .submit(`${ctx.tenantId}/${input.auctionId}`, { ctx, kind, input });
  if (!outcome.ok) throw outcome.error;
  const { auction, bid } = outcome.placed;
  // A moved or reached end (a seq after the bid's own) changes when the scheduler must look next.
  if (auction.seq !== bid.seq) ctx.workers.wake('auctions');
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
  const where = price === null ? 'no bid yet' : `the current price is ${price}`;
  return new AppError(refusal.error, `${refusal.message}; ${where}`, { details });
}

interface FirstResult {
  bidderId: string;
  clientBidId: string;
  outcome: Outcome;
}

interface EarlierBid {
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

interface EarlierRefusal {
  bidderId: string;
  clientBidId: string;
  code: Refusal['code'];
  message: string;
  currentPrice: number | null;
}

/**
 * The auction under its lock, with the bids and refusals already recorded under the group's clientBidIds
 * (a retry gets the first result): one round trip. The lookups use the indexes of migration 0091, whatever
 * the auction's size.
 */
const LOCK_SQL = `
with ${actorsCte(3, 4)}
select ${AUCTION_COLUMNS},
  (select coalesce(json_agg(b), '[]'::json) from bidders b) as bidders,
  (select coalesce(json_agg(json_build_object(
      'id', b.id, 'seq', b.seq, 'kind', b.kind, 'bidder', b.bidder, 'amount', b.amount,
      'maxAmount', b.max_amount, 'priceAfter', b.price_after, 'leading', b.leading_after,
      'clientBidId', b.client_bid_id, 'createdAt', ${isoTime('b.created_at')})), '[]'::json)
     from auction_bids b
     where b.tenant_id = a.tenant_id and b.auction_id = a.id and b.client_bid_id = any($2::text[])) as earlier_bids,
  (select coalesce(json_agg(json_build_object(
      'bidderId', r.bidder_actor_id::text, 'clientBidId', r.client_bid_id, 'code', r.code,
      'message', r.message, 'currentPrice', r.current_price) order by r.id), '[]'::json)
     from auction_rejections r
     where r.tenant_id = a.tenant_id and r.auction_id = a.id and r.client_bid_id = any($2::text[])) as earlier_refusals
from auctions a where a.id = $1 for update of a`;

function earlierResults(
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

/**
 * Everything a group decided, in one statement with its events (`writeWithEvents`): the auction's new
 * state (guarded by the seq it was decided on), the accepted bids, the refusals and the log rows. Each
 * part is skipped when it has no rows. The rows travel as three JSON arrays of records (one
 * `JSON.stringify` each), not as a parameter array per column, which the driver serialised and escaped
 * element by element.
 */
function groupWrite(
  auctionId: string,
  startSeq: number,
  state: AuctionState,
  written: {
    tenantId: string;
    roomId: string;
    at: string;
    endedAt: string | null;
    bids: readonly Record<string, unknown>[];
    refusals: readonly Record<string, unknown>[];
    frames: readonly Record<string, unknown>[];
  },
): OwnStatement {
  return (bind) => {
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
    const id = bind(auctionId);
    const tenant = bind(written.tenantId);
    const at = bind(written.at);
    const from = bind(startSeq);
    return {
      with: [
        [
          'saved',
          `update auctions set status = ${status}, current_price = ${price}, leader_bid_id = ${leaderBid},
              leader_max = ${leaderMax}, leader = ${leader}, bid_count = ${bidCount}, ends_at = ${endsAt},
              extensions = ${extensions}, seq = ${seq}, outcome = ${outcome}, winner = ${winner},
              final_price = ${final}, ended_at = coalesce(${bind(written.endedAt)}, ended_at), updated_at = ${at}
            where id = ${id} and seq = ${from} and ${seq}::bigint <> ${from}::bigint
          returning 1`,
        ],
        [
          'bids',
          `insert into auction_bids (tenant_id, auction_id, id, seq, kind, bidder_actor_id, bidder, amount,
              max_amount, price_after, leading_after, client_bid_id, created_at)
          select ${tenant}, ${id}, * from jsonb_to_recordset(${bind(JSON.stringify(written.bids))}::jsonb)
            as b(id text, seq bigint, kind text, bidder_actor_id uuid, bidder jsonb, amount bigint,
                 max_amount bigint, price_after bigint, leading_after boolean, client_bid_id text,
                 created_at timestamptz)`,
        ],
        [
          'refused',
          `insert into auction_rejections (tenant_id, auction_id, bidder_actor_id, amount, max_amount, code,
              message, current_price, client_bid_id, created_at)
          select ${tenant}, ${id}, * from jsonb_to_recordset(${bind(JSON.stringify(written.refusals))}::jsonb)
            as r(bidder_actor_id uuid, amount bigint, max_amount bigint, code text, message text,
                 current_price bigint, client_bid_id text, created_at timestamptz)`,
        ],
        [
          'logged',
          `insert into auction_log (tenant_id, auction_id, room_id, seq, frame, created_at)
          select ${tenant}, ${id}, ${bind(written.roomId)}, (l.frame->>'seq')::bigint, l.frame, ${at}
            from jsonb_array_elements(${bind(JSON.stringify(written.frames))}::jsonb) as l(frame)`,
        ],
      ],
      sql: 'select (select count(*) from saved)::int as saved',
    };
  };
}

/**
 * One transaction for a group of bids on one auction (in `ctx` of the first): lock the row, end it first
 * if its end has passed, decide each bid in order, then write the new state, bids, refusals, log and
 * events in one statement.
 */
async function writeGroup(group: readonly QueuedBid[]): Promise<Outcome[]> {
  const first = group[0];
  if (first === undefined) return [];
  const { ctx } = first;
  const auctionId = first.input.auctionId;
  // One event-loop turn before the transaction: the requests read meanwhile queue for the next group
  // (this one is taken). Taking the group after the turn instead, so they join it, changed neither the
  // group sizes nor the rates of bench:auctions (2026-11-27, both databases).
  await new Promise((resolve) => setImmediate(resolve));
  return inTenant(ctx, async (tx, _emit, _emitEach, writeWithEvents) => {
    const now = ctx.clock.now();
    const clientIds = group.flatMap((item) =>
      item.input.clientBidId === undefined ? [] : [item.input.clientBidId],
    );
    const items = group.map((item) => ({ ctx: item.ctx, named: item.input.actor }));
    const { own, named } = namedActors(items);
    const { rows } = await tx.query<
      AuctionRow & { bidders: Actor[]; earlier_bids: EarlierBid[]; earlier_refusals: EarlierRefusal[] }
    >(LOCK_SQL, [auctionId, clientIds, ctx.tenantId, ...actorParams(named)]);
    const row = rows[0];
    if (row === undefined) throw new NotFound('auction', auctionId);
    const state = stateOf(row);
    const startSeq = state.seq;
    const changes: AuctionChange[] = [];
    let endedAt: number | undefined;
    if (state.status === 'live' && state.endsAt !== null && state.endsAt <= now) {
      // The end has passed: whoever sees it first ends the auction, then refuses the bids.
      endAuction(state);
      endedAt = now;
      changes.push(endedChange(ctx, row, state, now));
    }
    const bidders = await assignBidders(tx, items, own, row.bidders);
    const firsts =
      clientIds.length === 0
        ? []
        : earlierResults(
            row.earlier_bids,
            row.earlier_refusals,
            auctionId,
            toAuction(row, now, state),
            state,
          );

    const outcomes: Outcome[] = [];
    const bids: Record<string, unknown>[] = [];
    const refusals: Record<string, unknown>[] = [];
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

    if (changes.length > 0 || refusals.length > 0) {
      const written = await writeWithEvents<{ saved: number }>(
        changes.map((c) => ({ by: c.by, type: c.type, data: c.data })),
        groupWrite(auctionId, startSeq, state, {
          tenantId: ctx.tenantId,
          roomId: row.room_id,
          at,
          endedAt: endedAt === undefined ? null : new Date(endedAt).toISOString(),
          bids,
          refusals,
          frames: changes.map(frameOf),
        }),
      );
      if (state.seq !== startSeq && written[0]?.saved !== 1)
        throw new Error(`auction ${auctionId} changed under its lock`);
    }
    return outcomes;
  });
}
