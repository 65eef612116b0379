import type { AuctionRow } from '../auction-row.ts';
import type { AuctionState, Bidder } from '../rules.ts';
import { sessionBidder } from './bidders.ts';
import type { QueuedBid } from './decide-group.ts';

/** The live auction this instance wrote last, as it left it. */
export interface KnownAuction {
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
export class BidMemory {
  readonly auctions = new Map<string, KnownAuction>();
  private readonly actors = new Map<string, Bidder>();

  /** The bidders of a group when every one is known here, else undefined. */
  bidders(group: readonly QueuedBid[]): Bidder[] | undefined {
    const bidders: Bidder[] = [];
    for (const item of group) {
      const own = sessionBidder(item);
      const named = item.input.actor;
      const actor =
        own ?? (named === undefined ? undefined : this.actors.get(`${item.ctx.tenantId}/${named.id}`));
      if (actor === undefined) return undefined;
      bidders.push(actor);
    }
    return bidders;
  }

  rememberActors(group: readonly QueuedBid[], bidders: readonly Bidder[]): void {
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
   * groups take the locked path, twice as many after each miss in a row (rule 7 of group-write.ts).
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
