import assert from 'node:assert/strict';
import { type Accepted, type AuctionState, type Bidder, type Decision, decideBid } from '../rules.ts';

/** The pure rules' fixtures: a live auction's state, a bidder, a bid, and how a decision went. */

export const T0 = Date.UTC(2026, 0, 1);
export const actor = (name: string): Bidder => ({
  id: name,
  type: 'end_user',
  externalId: `test:${name}`,
  identityProvider: 'test',
});

export function live(overrides: Partial<AuctionState> = {}): AuctionState {
  return {
    status: 'live',
    currency: 'EUR',
    startingPrice: 1000,
    reservePrice: null,
    buyNowPrice: null,
    increments: [{ from: 0, increment: 100 }],
    softClose: { windowSeconds: 0, mode: 'extend', extendSeconds: 30, maxExtensions: 5 },
    suddenDeath: false,
    currentPrice: null,
    leader: null,
    bidCount: 0,
    endsAt: T0 + 3_600_000,
    extensions: 0,
    seq: 2,
    outcome: null,
    winner: null,
    finalPrice: null,
    ...overrides,
  };
}

let counter = 0;
export function bid(
  state: AuctionState,
  who: string,
  amounts: { amount?: number; maxAmount?: number; currency?: string },
  now = T0,
): Decision {
  counter += 1;
  return decideBid(state, { bidId: `bid_${counter}`, bidder: actor(who), ...amounts }, now);
}

export function accepted(decision: Decision): Accepted {
  if (!decision.ok) assert.fail(`refused: ${decision.refusal.code} ${decision.refusal.message}`);
  return decision;
}

export function refusedWith(decision: Decision, code: string): void {
  assert.equal(decision.ok, false, 'the bid was accepted');
  if (!decision.ok) assert.equal(decision.refusal.code, code);
}

/** How an accepted bid left the auction: whether it leads, the price after it, and who leads. */
export function standing(state: AuctionState, result: Accepted) {
  return { leading: result.leading, priceAfter: result.priceAfter, leader: state.leader?.bidder.id };
}
