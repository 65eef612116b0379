import {
  type ActingItem,
  type ActingPhrases,
  sessionOrNamedActor,
} from '../../../core/tenancy/acting-actor.ts';
import type { Bidder } from '../rules.ts';
import type { QueuedBid } from './decide-group.ts';

/** How a bid's refusals name whom it is placed for. */
export const BIDDING: ActingPhrases = { sessionVerb: 'bids', namedFor: 'this bid is placed for' };

/** Who a queued bid acts as, in core's terms: its caller, and the actor its input names. */
export function actingItem(item: QueuedBid): ActingItem {
  return { principal: item.ctx.principal, named: item.input.actor };
}

/**
 * The checks that need no database: a session token bids as its own actor (and may not name another),
 * an API key must name the actor it bids for. Returns the session's actor, if any.
 */
export function sessionBidder(item: QueuedBid): Bidder | undefined {
  return sessionOrNamedActor(item.ctx.principal, item.input.actor, BIDDING);
}
