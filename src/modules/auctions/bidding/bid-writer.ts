import type { Static } from 'typebox';
import { inTenant, type ServiceContext, tenantWrite } from '../../../core/context.ts';
import { PG_ERROR, pgErrorCode } from '../../../core/db/database.ts';
import type { GroupTurn, GroupWriter } from '../../../core/db/group-commit.ts';
import type { EventBatch } from '../../../core/events/store.ts';
import { NotFound } from '../../../core/http/errors.ts';
import {
  assignNamedActors,
  namedActorParams,
  namedActorsCte,
  namedActorsOf,
} from '../../../core/tenancy/acting-actor.ts';
import { AUCTION_COLUMNS, type AuctionRow, stateOf, toAuction } from '../auction-row.ts';
import { auctionFor } from '../audience.ts';
import type { Bidder } from '../rules.ts';
import type { PlaceBidArguments } from '../schema/bid.ts';
import { actingItem, BIDDING, sessionBidder } from './bidders.ts';
import { decideGroup, type Outcome, type PlacedBid, type QueuedBid } from './decide-group.ts';
import { AUCTION_MOVED, groupWrite } from './group-write.ts';
import { BidMemory, type KnownAuction } from './memory.ts';
import { claimKeys, earlierResults } from './retries.ts';

/** The app's queue of bids (group commit), keyed by tenant and auction (rule 1 of group-write.ts). */
const BID_QUEUE = 'auctions.bid';

/**
 * Places a bid or buys now through the app's bid queue: the group it joins is decided in arrival order
 * and written on one of the two paths of group-write.ts. Answers with the bid and the auction after it.
 */
export async function submitBid(
  ctx: ServiceContext,
  kind: QueuedBid['kind'],
  input: Static<typeof PlaceBidArguments>,
): Promise<PlacedBid> {
  // What can refuse a bid without the auction's lock is checked before it joins a group.
  sessionBidder({ ctx, kind, input });
  const outcome = await ctx.groupCommit
    .queue(BID_QUEUE, new BidWriter())
    .submit(`${ctx.tenantId}/${input.auctionId}`, { ctx, kind, input });
  if (!outcome.ok) {
    ctx.metrics?.bids.inc({ outcome: 'refused' });
    throw outcome.error;
  }
  const { auction, bid } = outcome.placed;
  // A moved or reached end (a seq after the bid's own) changes when the scheduler must look next.
  if (auction.seq !== bid.seq) ctx.workers.wake('auctions');
  // The bidder's own maximum is in `bid`; the reserve amount only for the tenant's servers.
  return { bid, auction: auctionFor(ctx.principal, auction) };
}

/**
 * The writer of one app's bid queue. The app's `GroupCommits` (passed down in every context) makes its
 * queue with the first writer offered and keeps it, so this writer's memory is the app's own; the writers
 * offered later are dropped unused, which is why the memory is made on the first group, not here.
 */
class BidWriter implements GroupWriter<QueuedBid, Outcome> {
  readonly maxGroup = 256;
  private memory: BidMemory | undefined;

  writeGroup(group: readonly QueuedBid[], turn: GroupTurn): Promise<Outcome[]> {
    this.memory ??= new BidMemory();
    return writeGroup(group, this.memory, turn);
  }
}

/**
 * One group of bids on one auction (in `ctx` of the first). When this app wrote the auction last and
 * knows every bidder, the group is decided on that state and written as one statement, which fails whole
 * if the auction moved meanwhile (`unlockedGroup`, rule 4 of group-write.ts); then, and otherwise, the
 * group is decided under the row's lock (`lockedGroup`, rule 3). The statement goes out in the turn of
 * the event loop the group was taken in: the group before it publishes its events (the fan-out) and
 * answers after that (`turn.afterCommit`, the queue's pipelining), in group order, so in seq order.
 */
async function writeGroup(
  group: readonly QueuedBid[],
  memory: BidMemory,
  turn: GroupTurn,
): Promise<Outcome[]> {
  const first = group[0];
  if (first === undefined) return [];
  const key = `${first.ctx.tenantId}/${first.input.auctionId}`;
  const publish = (batch: EventBatch) => turn.afterCommit(() => first.ctx.events.publish(batch));
  const known = memory.auctions.get(key);
  if (known !== undefined && known.lockedFor === 0) {
    const bidders = memory.bidders(group);
    if (bidders !== undefined) {
      const outcomes = await unlockedGroup(group, key, known, bidders, memory, publish);
      if (outcomes !== undefined) return outcomes;
      memory.moved(key);
    }
  }
  try {
    return await lockedGroup(group, key, memory, turn, publish);
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
async function unlockedGroup(
  group: readonly QueuedBid[],
  key: string,
  known: KnownAuction,
  bidders: readonly Bidder[],
  memory: BidMemory,
  publish: (batch: EventBatch) => void,
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
      publish,
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

/**
 * The locked path's two statements have fixed texts (the group's statement has one for a single event and
 * one for several): prepared, they are planned once per connection instead of for every group, which was
 * 6.3 ms a group for the statement with its webhook fan-out (pg_stat_statements).
 */
const PREPARED = { prepared: true } as const;

/** The auction under its lock, with the actors the group's API keys name: one round trip. */
const LOCK_SQL = `
with ${namedActorsCte(2, 3)}
select ${AUCTION_COLUMNS}, a.xmin::text as version,
  (select coalesce(json_agg(n), '[]'::json) from named_actors n) as bidders
from auctions a where a.id = $1 for update of a`;

/**
 * One transaction for the group: lock the row (with the group's earlier results and named actors), end
 * the auction first if its end has passed, decide each bid in order, then write the new state, bids,
 * refusals, log and events in one statement.
 */
async function lockedGroup(
  group: readonly QueuedBid[],
  key: string,
  memory: BidMemory,
  turn: GroupTurn,
  publish: (batch: EventBatch) => void,
): Promise<Outcome[]> {
  const { ctx, input } = group[0] as QueuedBid;
  const auctionId = input.auctionId;
  const done = await inTenant(
    ctx,
    async (tx, _emit, _emitEach, writeWithEvents) => {
      const now = ctx.clock.now();
      const items = group.map(actingItem);
      const { own, named } = namedActorsOf(items, BIDDING);
      const { rows } = await tx.query<AuctionRow & { version: string; bidders: Bidder[] }>(
        LOCK_SQL,
        [auctionId, ctx.tenantId, ...namedActorParams(named)],
        PREPARED,
      );
      const found = rows[0];
      if (found === undefined) throw new NotFound('auction', auctionId);
      const { version: lockedVersion, bidders: namedRows, ...row } = found;
      const state = stateOf(row);
      const startSeq = state.seq;
      const bidders = await assignNamedActors(tx, items, own, namedRows);
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
          PREPARED,
        );
        if (state.seq !== startSeq && written[0]?.saved !== 1)
          throw new Error(`auction ${auctionId} changed under its lock`);
        version = written[0]?.version ?? version;
      }
      turn.committing();
      return { row, state, version, bidders, decided };
    },
    publish,
  );
  // Committed: the next group may start from here.
  memory.rememberActors(group, done.bidders);
  memory.wrote(key, done.row, done.state, done.version, done.decided.at);
  return done.decided.outcomes;
}
