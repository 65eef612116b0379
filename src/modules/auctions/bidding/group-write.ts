import type { Bind, OwnStatement } from '../../../core/events/store.ts';
import { stateParams } from '../auction-row.ts';
import { frameOf } from '../changes.ts';
import type { AuctionState } from '../rules.ts';
import type { DecidedGroup } from './decide-group.ts';

/*
 * How bids on one auction are ordered and written: the rules of both write paths, here beside the
 * statement that depends on them most (`groupWrite`). bid-writer.ts runs the two paths, retries.ts claims
 * the keys, memory.ts keeps what the unlocked path decides on.
 *
 * 1. One group at a time per auction on an instance: the app's group-commit queue (`auctions.bid`, keyed
 *    by tenant and auction) has one group's write in flight; the bids that arrive meanwhile form the next
 *    group, decided one by one in arrival order against the state the one before left (decide-group.ts).
 * 2. Across instances (and against the lifecycle verbs and the scheduler, which change the row under its
 *    lock), writes are ordered by the auction's `seq`: a group's state is written only while the row
 *    still has the seq it was decided on, so no decision is applied twice or over another one.
 * 3. The locked path: one transaction takes the row `for update` (with the actors the group names), then
 *    claims the group's (bidder, clientBidId) keys in `auction_client_bids`, then decides, then writes
 *    everything in one statement. The row is always taken before the keys.
 * 4. The unlocked path: when this instance wrote the auction last and knows every bidder, the group is
 *    decided on the state it left and written as one statement with no transaction or lock before it.
 *    That statement goes through only while the row is still the version the last write left (`xmin`:
 *    any update makes a new one, an operator's by hand too) and none of the group's keys was recorded
 *    before; otherwise it fails whole, events and all, through `auction_moved` (SQLSTATE SVA01,
 *    migration 0092), and the group is decided again on the locked path.
 * 5. Inside the unlocked statement the row is taken first (`saved`: the update, or a key-share read when
 *    the group only refused) and the keys after it: rule 3's order, so that a retry racing its original
 *    on another instance cannot deadlock against that instance's locked group.
 * 6. A retry (a key recorded before) answers with its first result: only the locked path reads those
 *    (retries.ts); rule 4 sends a retry there. A key whose result is gone (a refusal past its retention)
 *    is decided again.
 * 7. After an unlocked statement fails, the auction's next groups take the locked path, twice as many
 *    after each failure in a row (1, 2, 4 ... 64), so two instances bidding on one auction do not keep
 *    paying for statements that fail (memory.ts).
 * 8. Everything a group decided (the state, bids, refusals, log frames and events) is one statement: a
 *    group is written whole or not at all, and its events are published after commit in seq order.
 */

/**
 * How a group's statement knows the auction was not moved since its state was read: `locked`, read under
 * the row's lock in this transaction (rule 3); `unlocked`, the version this instance's last write left
 * (rule 4).
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
    // Under the lock the keys were claimed before the group was decided (rule 3, retries.ts).
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
    // Unlocked, the statement answers the row's new version, or fails: the row moved, or a key was there
    // (rule 4). `saved` is read before `keyed` (rule 5).
    const fail = `auction_moved(${id}, ${from})`;
    const version = '(select version from saved)';
    const checked =
      keys.length === 0
        ? `coalesce(${version}, ${fail})`
        : `case when ${version} is null then ${fail}
                when (select count(*) from keyed) <> ${bind(keys.length)}::int then ${fail}
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
