import type { Static } from 'typebox';
import { roomLimit } from '../../../core/auth/principal.ts';
import { inTenant, type ServiceContext, tenantWrite } from '../../../core/context.ts';
import { isoTime, PG_ERROR, pgErrorCode, type Queryable } from '../../../core/db/database.ts';
import type { GroupCommits, GroupWriter } from '../../../core/db/group-commit.ts';
import { NotFound } from '../../../core/http/errors.ts';
import { AUCTION_COLUMNS, type AuctionRow, stateOf, toAuction } from '../auction-row.ts';
import { auctionFor } from '../audience.ts';
import type { Actor, AuctionState } from '../rules.ts';
import type { BuyNowInput, PlaceBidInput } from '../schema.ts';
import {
  AUCTION_MOVED,
  decideGroup,
  type EarlierBid,
  type EarlierRefusal,
  earlierResults,
  groupWrite,
  type Outcome,
  type PlacedBid,
  type QueuedBid,
} from './bid-group.ts';
import { actorParams, actorsCte, assignBidders, checkBidder, namedActors } from './bidder.ts';

export type { PlacedBid } from './bid-group.ts';

/**
 * Places a bid. Bids on one auction go through the app's group-commit queue: while one group's write is
 * in flight, later bids wait, and the next group decides all of them one by one, in arrival order, against
 * the state each left. Every group's write is guarded by the auction's seq it was decided on, so across
 * instances the groups are decided in the order they commit.
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
    .queue('auctions.bid', bidWriter(ctx.groupCommit))
    .submit(`${ctx.tenantId}/${input.auctionId}`, { ctx, kind, input });
  if (!outcome.ok) throw outcome.error;
  const { auction, bid } = outcome.placed;
  // A moved or reached end (a seq after the bid's own) changes when the scheduler must look next.
  if (auction.seq !== bid.seq) ctx.workers.wake('auctions');
  // The bidder's own maximum is in `bid`; the reserve amount only for the tenant's servers.
  return { bid, auction: auctionFor(ctx.principal, auction) };
}

/** The live auction this instance wrote last, as it left it. */
interface KnownAuction {
  row: AuctionRow;
  state: AuctionState;
  /** The row's version (`xmin`) after that write. */
  version: string;
  /** Groups to take the locked path before trying the state known here again (after another writer moved it). */
  lockedFor: number;
  /** Unlocked groups in a row that found the auction moved. */
  misses: number;
}

/** At most this many auctions and actors are remembered per app; the oldest go first. */
const MAX_KNOWN_AUCTIONS = 1_000;
const MAX_KNOWN_ACTORS = 10_000;

/**
 * What one app remembers between an auction's groups, so that a hot auction's next group needs one
 * statement instead of a transaction of four round trips (BEGIN, the locked read, the write, COMMIT):
 * - each live auction's state as this app's last group left it (`KnownAuction`);
 * - the actors that API keys named in bids, by tenant and external id (an actor's id, type and external id
 *   never change; one that was deleted fails its bid's foreign key, and the group takes the locked path).
 */
class BidMemory {
  readonly auctions = new Map<string, KnownAuction>();
  private readonly actors = new Map<string, Actor>();

  /** The bidders of a group when every one is known here, else undefined. */
  bidders(group: readonly QueuedBid[]): Actor[] | undefined {
    const bidders: Actor[] = [];
    for (const item of group) {
      const own = checkBidder(item.ctx, item.input.actor);
      const named = item.input.actor;
      const actor =
        own ?? (named === undefined ? undefined : this.actors.get(`${item.ctx.tenantId}/${named.id}`));
      if (actor === undefined) return undefined;
      bidders.push(actor);
    }
    return bidders;
  }

  rememberActors(group: readonly QueuedBid[], bidders: readonly Actor[]): void {
    for (const [i, item] of group.entries()) {
      const bidder = bidders[i];
      if (item.input.actor === undefined || bidder === undefined) continue;
      remember(this.actors, `${item.ctx.tenantId}/${bidder.externalId}`, bidder, MAX_KNOWN_ACTORS);
    }
  }

  /** After a group committed: a live auction is remembered as the group left it; any other is forgotten. */
  wrote(key: string, row: AuctionRow, state: AuctionState, version: string | undefined, at: string): void {
    const before = this.auctions.get(key);
    if (state.status !== 'live' || version === undefined) {
      this.auctions.delete(key);
      return;
    }
    remember(
      this.auctions,
      key,
      {
        row: { ...row, updated_at: at },
        state,
        version,
        lockedFor: Math.max(0, (before?.lockedFor ?? 0) - 1),
        misses: before?.misses ?? 0,
      },
      MAX_KNOWN_AUCTIONS,
    );
  }

  /**
   * Another writer (an instance, a lifecycle verb, the scheduler) moved the auction since: the next
   * groups take the locked path, twice as many after each miss in a row (1, 2, 4 ... 64), so two
   * instances bidding on one auction do not keep paying for statements that fail.
   */
  moved(key: string): void {
    const known = this.auctions.get(key);
    if (known === undefined) return;
    known.misses += 1;
    known.lockedFor = 2 ** Math.min(known.misses - 1, 6);
  }
}

/** Sets `key` as the newest entry of `map`, dropping the oldest past `max`. */
function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) {
    const oldest = map.keys().next();
    if (oldest.done !== true) map.delete(oldest.value);
  }
}

/** Each app's bid writer, with its memory (an app's group-commit queues are its own). */
const writers = new WeakMap<GroupCommits, GroupWriter<QueuedBid, Outcome>>();

function bidWriter(commits: GroupCommits): GroupWriter<QueuedBid, Outcome> {
  let writer = writers.get(commits);
  if (writer === undefined) {
    const memory = new BidMemory();
    writer = { writeGroup: (group) => writeGroup(group, memory), maxGroup: 256 };
    writers.set(commits, writer);
  }
  return writer;
}

/**
 * One group of bids on one auction (in `ctx` of the first). When this app wrote the auction last and
 * knows every bidder, the group is decided on that state and written as one statement, which fails whole
 * if the auction moved meanwhile (`knownGroup`); then, and otherwise, the group is decided under the row's
 * lock (`lockedGroup`).
 */
async function writeGroup(group: readonly QueuedBid[], memory: BidMemory): Promise<Outcome[]> {
  const first = group[0];
  if (first === undefined) return [];
  const key = `${first.ctx.tenantId}/${first.input.auctionId}`;
  // One event-loop turn before the write: the requests read meanwhile queue for the next group (this one
  // is taken). Taking the group after the turn instead, so they join it, changed neither the group sizes
  // nor the rates of bench:auctions (2026-11-27, both databases).
  await new Promise((resolve) => setImmediate(resolve));
  const known = memory.auctions.get(key);
  if (known !== undefined && known.lockedFor === 0) {
    const bidders = memory.bidders(group);
    if (bidders !== undefined) {
      const outcomes = await knownGroup(group, key, known, bidders, memory);
      if (outcomes !== undefined) return outcomes;
      memory.moved(key);
    }
  }
  try {
    return await lockedGroup(group, key, memory);
  } catch (error) {
    memory.auctions.delete(key);
    throw error;
  }
}

/**
 * The group decided on the state this app left (`known`), written as one statement with its events,
 * without a transaction around it; undefined (nothing written) when another writer moved the auction or
 * recorded one of the group's clientBidIds first, or a bidder's actor is gone.
 */
async function knownGroup(
  group: readonly QueuedBid[],
  key: string,
  known: KnownAuction,
  bidders: readonly Actor[],
  memory: BidMemory,
): Promise<Outcome[] | undefined> {
  const { ctx } = group[0] as QueuedBid;
  const now = ctx.clock.now();
  // The rules change the state in place, its leader too: a group that fails must leave `known` as it was.
  const state = { ...known.state, leader: known.state.leader === null ? null : { ...known.state.leader } };
  const startSeq = state.seq;
  const decided = decideGroup(group, known.row, state, bidders, [], now);
  // Only refusals by room (a token limited to another room) need nothing written.
  if (decided.changes.length === 0 && decided.refusals.length === 0) return decided.outcomes;
  let written: { version: string }[];
  try {
    written = await tenantWrite<{ version: string }>(
      ctx,
      decided.changes,
      groupWrite(
        known.row.id,
        startSeq,
        state,
        { kind: 'unlocked', version: known.version },
        {
          ...decided,
          tenantId: ctx.tenantId,
          roomId: known.row.room_id,
        },
      ),
    );
  } catch (error) {
    const code = pgErrorCode(error);
    if (code === AUCTION_MOVED || code === PG_ERROR.uniqueViolation || code === PG_ERROR.foreignKeyViolation)
      return undefined;
    throw error;
  }
  known.misses = 0;
  memory.wrote(key, known.row, state, written[0]?.version, decided.at);
  return decided.outcomes;
}

/** The auction under its lock, with the actors the group's API keys name: one round trip. */
const LOCK_SQL = `
with ${actorsCte(2, 3)}
select ${AUCTION_COLUMNS}, a.xmin::text as version,
  (select coalesce(json_agg(b), '[]'::json) from bidders b) as bidders
from auctions a where a.id = $1 for update of a`;

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
async function claimKeys(
  tx: Queryable,
  tenantId: string,
  row: AuctionRow,
  group: readonly QueuedBid[],
  bidders: readonly Actor[],
): Promise<{ bids: EarlierBid[]; refusals: EarlierRefusal[] } | undefined> {
  const keys = new Map<string, { bidderId: string; clientBidId: string }>();
  for (const [i, item] of group.entries()) {
    const { clientBidId } = item.input;
    const onlyRoom = roomLimit(item.ctx.principal);
    // A token limited to another room is answered "not found", which is no result to keep.
    if (clientBidId === undefined || (onlyRoom !== undefined && onlyRoom !== row.room_id)) continue;
    const bidderId = (bidders[i] as Actor).id;
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

/**
 * One transaction for the group: lock the row (with the group's earlier results and named actors), end
 * the auction first if its end has passed, decide each bid in order, then write the new state, bids,
 * refusals, log and events in one statement.
 */
async function lockedGroup(group: readonly QueuedBid[], key: string, memory: BidMemory): Promise<Outcome[]> {
  const { ctx, input } = group[0] as QueuedBid;
  const auctionId = input.auctionId;
  const done = await inTenant(ctx, async (tx, _emit, _emitEach, writeWithEvents) => {
    const now = ctx.clock.now();
    const items = group.map((item) => ({ ctx: item.ctx, named: item.input.actor }));
    const { own, named } = namedActors(items);
    const { rows } = await tx.query<AuctionRow & { version: string; bidders: Actor[] }>(LOCK_SQL, [
      auctionId,
      ctx.tenantId,
      ...actorParams(named),
    ]);
    const found = rows[0];
    if (found === undefined) throw new NotFound('auction', auctionId);
    const { version: lockedVersion, bidders: namedRows, ...row } = found;
    const state = stateOf(row);
    const startSeq = state.seq;
    const bidders = await assignBidders(tx, items, own, namedRows);
    const earlier = await claimKeys(tx, ctx.tenantId, row, group, bidders);
    const firsts =
      earlier === undefined
        ? []
        : earlierResults(earlier.bids, earlier.refusals, auctionId, toAuction(row, now, state), state);
    const decided = decideGroup(group, row, state, bidders, firsts, now);
    let version = lockedVersion;
    if (decided.changes.length > 0 || decided.refusals.length > 0) {
      const written = await writeWithEvents<{ saved: number; version: string | null }>(
        decided.changes,
        groupWrite(
          auctionId,
          startSeq,
          state,
          { kind: 'locked' },
          {
            ...decided,
            tenantId: ctx.tenantId,
            roomId: row.room_id,
          },
        ),
      );
      if (state.seq !== startSeq && written[0]?.saved !== 1)
        throw new Error(`auction ${auctionId} changed under its lock`);
      version = written[0]?.version ?? version;
    }
    return { row, state, version, bidders, decided };
  });
  // Committed: the next group may start from here.
  memory.rememberActors(group, done.bidders);
  memory.wrote(key, done.row, done.state, done.version, done.decided.at);
  return done.decided.outcomes;
}
