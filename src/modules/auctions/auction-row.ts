import type { Static } from 'typebox';
import { roomLimit } from '../../core/auth/principal.ts';
import type { ServiceContext } from '../../core/context.ts';
import { isoTime, type Queryable } from '../../core/db/database.ts';
import { tenantRead } from '../../core/db/tenant-tx.ts';
import { NotFound } from '../../core/http/errors.ts';
import { actorView } from '../../core/tenancy/actors.ts';
import {
  type AuctionState,
  type Bidder,
  buyNowAvailable,
  type Increment,
  type Leader,
  minimumBid,
  type Outcome,
  reserveMet,
  type SoftCloseRule,
  type Status,
} from './rules.ts';
import type { Auction } from './schema/auction.ts';

export type AuctionView = Static<typeof Auction>;

export interface AuctionRow {
  id: string;
  list_seq: number | string;
  room_id: string;
  title: string;
  description: string;
  currency: string;
  starting_price: number | string;
  reserve_price: number | string | null;
  buy_now_price: number | string | null;
  increments: Increment[];
  starts_at: string | null;
  duration_seconds: number;
  soft_close: SoftCloseRule;
  sudden_death: boolean;
  published: boolean;
  metadata: Record<string, unknown>;
  status: Status;
  current_price: number | string | null;
  leader_bid_id: string | null;
  leader_max: number | string | null;
  leader: Bidder | null;
  bid_count: number;
  started_at: string | null;
  ends_at: string | null;
  ended_at: string | null;
  extensions: number;
  seq: number | string;
  outcome: Outcome | null;
  winner: Bidder | null;
  final_price: number | string | null;
  created_at: string;
  updated_at: string;
}

export const AUCTION_COLUMNS = `id, list_seq, room_id, title, description, currency, starting_price,
  reserve_price, buy_now_price, increments, ${isoTime('starts_at')} as starts_at, duration_seconds,
  soft_close, sudden_death, published, metadata, status, current_price, leader_bid_id, leader_max, leader,
  bid_count, ${isoTime('started_at')} as started_at, ${isoTime('ends_at')} as ends_at,
  ${isoTime('ended_at')} as ended_at, extensions, seq, outcome, winner, final_price,
  ${isoTime('created_at')} as created_at, ${isoTime('updated_at')} as updated_at`;

const num = (value: number | string | null): number | null => (value === null ? null : Number(value));
const time = (value: string | null): number | null => (value === null ? null : Date.parse(value));
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** An auction row with the fields the rules decide on. */
export interface LoadedAuction {
  row: AuctionRow;
  state: AuctionState;
}

export function stateOf(row: AuctionRow): AuctionState {
  const leader: Leader | null =
    row.leader === null || row.leader_bid_id === null
      ? null
      : { bidId: row.leader_bid_id, bidder: row.leader, max: Number(row.leader_max) };
  return {
    status: row.status,
    currency: row.currency,
    startingPrice: Number(row.starting_price),
    reservePrice: num(row.reserve_price),
    buyNowPrice: num(row.buy_now_price),
    increments: row.increments,
    softClose: row.soft_close,
    suddenDeath: row.sudden_death,
    currentPrice: num(row.current_price),
    leader,
    bidCount: row.bid_count,
    endsAt: time(row.ends_at),
    extensions: row.extensions,
    seq: Number(row.seq),
    outcome: row.outcome,
    winner: row.winner,
    finalPrice: num(row.final_price),
  };
}

/**
 * The read model as the tenant's servers see it: never the leader's maximum. `now` decides what is offered
 * at this moment. End users get it through `auctionFor` / `endUserFrame` (audience.ts), without the reserve.
 */
export function toAuction(row: AuctionRow, now: number, state: AuctionState = stateOf(row)): AuctionView {
  const leader = state.leader;
  return {
    id: row.id,
    roomId: row.room_id,
    title: row.title,
    description: row.description,
    currency: row.currency,
    startingPrice: state.startingPrice,
    reservePrice: state.reservePrice,
    hasReserve: state.reservePrice !== null,
    reserveMet: reserveMet(state),
    buyNowPrice: state.buyNowPrice,
    buyNowAvailable: buyNowAvailable(state, now),
    increments: state.increments.map((r) => ({ from: r.from, increment: r.increment })),
    startsAt: row.starts_at,
    durationSeconds: row.duration_seconds,
    softClose: state.softClose,
    suddenDeath: state.suddenDeath,
    published: row.published,
    metadata: row.metadata,
    status: state.status,
    currentPrice: state.currentPrice,
    minimumBid: state.status === 'ended' || state.status === 'cancelled' ? null : minimumBid(state),
    leadingBid:
      leader === null || state.currentPrice === null
        ? null
        : { bidId: leader.bidId, bidder: actorView(leader.bidder), amount: state.currentPrice },
    bidCount: state.bidCount,
    startedAt: row.started_at,
    endsAt: iso(state.endsAt),
    extensions: state.extensions,
    seq: state.seq,
    outcome: state.outcome,
    winner: state.winner === null ? null : actorView(state.winner),
    finalPrice: state.finalPrice,
    endedAt: row.ended_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * The auction's row, or 404. A session token limited to one room sees only that room's auctions (404 for
 * the others, as for another tenant's).
 */
export async function readAuction(ctx: ServiceContext, auctionId: string): Promise<AuctionRow> {
  const { rows } = await tenantRead<AuctionRow>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select ${AUCTION_COLUMNS} from auctions where id = $1`,
    [auctionId],
  );
  const row = rows[0];
  const onlyRoom = roomLimit(ctx.principal);
  if (row === undefined || (onlyRoom !== undefined && row.room_id !== onlyRoom))
    throw new NotFound('auction', auctionId);
  return row;
}

/** Reads one auction in the transaction, locked for the change that follows; 404 when there is none. */
export async function lockAuction(tx: Queryable, auctionId: string): Promise<LoadedAuction> {
  const { rows } = await tx.query<AuctionRow>(
    `select ${AUCTION_COLUMNS} from auctions where id = $1 for update`,
    [auctionId],
  );
  const row = rows[0];
  if (row === undefined) throw new NotFound('auction', auctionId);
  return { row, state: stateOf(row) };
}

/** The state's columns in the order `saveState` (here and in bidding/group-write.ts) writes them. */
export function stateParams(state: AuctionState): unknown[] {
  return [
    state.status,
    state.currentPrice,
    state.leader?.bidId ?? null,
    state.leader?.max ?? null,
    state.leader === null ? null : JSON.stringify(state.leader.bidder),
    state.bidCount,
    iso(state.endsAt),
    state.extensions,
    state.seq,
    state.outcome,
    state.winner === null ? null : JSON.stringify(state.winner),
    state.finalPrice,
  ];
}

/**
 * Writes the decided state back. `expectedSeq` guards the write: it only happens while the row still has
 * the seq it was decided on, so no decision is ever applied twice or over another one.
 */
export async function saveState(
  tx: Queryable,
  auctionId: string,
  expectedSeq: number,
  state: AuctionState,
  now: number,
  extra: { startedAt?: number; endedAt?: number } = {},
): Promise<AuctionRow> {
  const { rows } = await tx.query<AuctionRow>(
    `update auctions set status = $3, current_price = $4, leader_bid_id = $5, leader_max = $6, leader = $7,
        bid_count = $8, ends_at = $9, extensions = $10, seq = $11, outcome = $12, winner = $13,
        final_price = $14, started_at = coalesce($15, started_at), ended_at = coalesce($16, ended_at),
        updated_at = $17
      where id = $1 and seq = $2
      returning ${AUCTION_COLUMNS}`,
    [
      auctionId,
      expectedSeq,
      ...stateParams(state),
      iso(extra.startedAt ?? null),
      iso(extra.endedAt ?? null),
      new Date(now).toISOString(),
    ],
  );
  const row = rows[0];
  if (row === undefined) throw new Error(`auction ${auctionId} changed under its lock`);
  return row;
}
