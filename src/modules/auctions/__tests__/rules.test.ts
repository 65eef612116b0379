import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type Accepted,
  type AuctionState,
  type Bidder,
  buyNowAvailable,
  canTransition,
  type Decision,
  decideBid,
  decideBuyNow,
  endAuction,
  incrementAt,
  minimumBid,
  reserveMet,
  type Status,
} from '../rules.ts';
import { DEFAULT_INCREMENTS } from '../schema/config.ts';

const T0 = Date.UTC(2026, 0, 1);
const actor = (name: string): Bidder => ({
  id: name,
  type: 'end_user',
  externalId: `test:${name}`,
  identityProvider: 'test',
});

function live(overrides: Partial<AuctionState> = {}): AuctionState {
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
function bid(
  state: AuctionState,
  who: string,
  amounts: { amount?: number; maxAmount?: number; currency?: string },
  now = T0,
): Decision {
  counter += 1;
  return decideBid(state, { bidId: `bid_${counter}`, bidder: actor(who), ...amounts }, now);
}

function accepted(decision: Decision): Accepted {
  if (!decision.ok) assert.fail(`refused: ${decision.refusal.code} ${decision.refusal.message}`);
  return decision;
}

function refusedWith(decision: Decision, code: string): void {
  assert.equal(decision.ok, false, 'the bid was accepted');
  if (!decision.ok) assert.equal(decision.refusal.code, code);
}

describe('increments', () => {
  test('the row with the highest `from` at or below the price applies', () => {
    assert.equal(incrementAt(DEFAULT_INCREMENTS, 0), 5);
    assert.equal(incrementAt(DEFAULT_INCREMENTS, 99), 5);
    assert.equal(incrementAt(DEFAULT_INCREMENTS, 100), 25);
    assert.equal(incrementAt(DEFAULT_INCREMENTS, 2_600), 100);
    assert.equal(incrementAt(DEFAULT_INCREMENTS, 10_000_000), 10_000);
  });

  test('the first bid must meet the starting price; later ones the price plus one increment', () => {
    const s = live();
    assert.equal(minimumBid(s), 1000);
    refusedWith(bid(s, 'a', { amount: 999 }), 'bid_too_low');
    accepted(bid(s, 'a', { amount: 1000 }));
    assert.equal(minimumBid(s), 1100);
    refusedWith(bid(s, 'b', { amount: 1099 }), 'bid_too_low');
    refusedWith(bid(s, 'b', { maxAmount: 1050 }), 'bid_too_low');
    const b = accepted(bid(s, 'b', { amount: 1100 }));
    assert.equal(b.priceAfter, 1100);
    assert.equal(s.leader?.bidder.id, 'b');
  });
});

describe('proxy bidding', () => {
  test('a first proxy bid opens at the starting price', () => {
    const s = live();
    const a = accepted(bid(s, 'a', { maxAmount: 5000 }));
    assert.equal(a.priceAfter, 1000);
    assert.equal(a.leading, true);
    assert.equal(s.leader?.max, 5000);
  });

  test('the leader pays the second-highest maximum plus one increment', () => {
    const s = live();
    accepted(bid(s, 'a', { maxAmount: 5000 }));
    const b = accepted(bid(s, 'b', { maxAmount: 3000 }));
    assert.equal(b.leading, false);
    assert.equal(b.priceAfter, 3100);
    assert.equal(s.leader?.bidder.id, 'a');
    const c = accepted(bid(s, 'c', { maxAmount: 6000 }));
    assert.equal(c.leading, true);
    assert.equal(c.priceAfter, 5100);
    assert.equal(s.leader?.bidder.id, 'c');
  });

  test('a bid outbid at once stands at what it offered, never at its maximum', () => {
    const s = live();
    accepted(bid(s, 'a', { maxAmount: 5000 }));
    const b = accepted(bid(s, 'b', { maxAmount: 3000 }));
    assert.equal(b.leading, false);
    assert.equal(b.amount, 1100, 'the minimum it had to bid, not its maximum of 3000');
    assert.equal(b.maxAmount, 3000, 'its bidder still learns its own maximum');
    const c = accepted(bid(s, 'c', { amount: 3500, maxAmount: 4000 }));
    assert.equal(c.leading, false);
    assert.equal(c.amount, 3500, 'its amount, not its maximum of 4000');
  });

  test('the price is capped at the leader’s own maximum', () => {
    const s = live();
    accepted(bid(s, 'a', { maxAmount: 5000 }));
    const b = accepted(bid(s, 'b', { maxAmount: 4950 }));
    assert.equal(b.priceAfter, 5000, 'not 4950 + 100');
    assert.equal(s.leader?.bidder.id, 'a');
    const t = live();
    accepted(bid(t, 'a', { maxAmount: 5000 }));
    const c = accepted(bid(t, 'c', { maxAmount: 5050 }));
    assert.equal(c.priceAfter, 5050, 'the new leader pays at most its maximum, not 5000 + 100');
  });

  test('equal maxima go to the earlier bid', () => {
    const s = live();
    accepted(bid(s, 'a', { maxAmount: 5000 }));
    const b = accepted(bid(s, 'b', { maxAmount: 5000 }));
    assert.equal(b.leading, false);
    assert.equal(b.priceAfter, 5000);
    assert.equal(s.leader?.bidder.id, 'a');
  });

  test('a leader raising its own maximum does not raise the price', () => {
    const s = live();
    accepted(bid(s, 'a', { maxAmount: 5000 }));
    accepted(bid(s, 'b', { maxAmount: 3000 }));
    const raise = accepted(bid(s, 'a', { maxAmount: 9000 }));
    assert.equal(raise.priceAfter, 3100);
    assert.equal(s.currentPrice, 3100);
    assert.equal(s.leader?.max, 9000);
    const c = accepted(bid(s, 'c', { maxAmount: 8000 }));
    assert.equal(c.priceAfter, 8100);
    assert.equal(s.leader?.bidder.id, 'a');
  });

  test('a leader bidding again without a higher maximum is refused as self_outbid', () => {
    const s = live();
    accepted(bid(s, 'a', { maxAmount: 5000 }));
    refusedWith(bid(s, 'a', { amount: 1100 }), 'self_outbid');
    refusedWith(bid(s, 'a', { maxAmount: 5000 }), 'self_outbid');
  });

  test('a straight bid above a proxy maximum takes the lead at its amount', () => {
    const s = live();
    accepted(bid(s, 'a', { maxAmount: 2000 }));
    const b = accepted(bid(s, 'b', { amount: 4000 }));
    assert.equal(b.priceAfter, 4000);
    assert.equal(s.leader?.bidder.id, 'b');
  });

  test('amount and maxAmount together: the bid stands at amount with a proxy up to maxAmount', () => {
    const s = live();
    accepted(bid(s, 'a', { amount: 1500, maxAmount: 3000 }));
    assert.equal(s.currentPrice, 1500);
    const b = accepted(bid(s, 'b', { amount: 2000 }));
    assert.equal(b.priceAfter, 2100);
    assert.equal(s.leader?.bidder.id, 'a');
    refusedWith(bid(s, 'c', { amount: 5000, maxAmount: 4000 }), 'amount_above_max');
  });

  test('the price never decreases over a run of bids', () => {
    const s = live({ increments: DEFAULT_INCREMENTS, startingPrice: 100 });
    let last = 0;
    for (let i = 0; i < 500; i++) {
      const who = `p${i % 7}`;
      const max = minimumBid(s) + ((i * 37) % 400);
      const d = bid(s, who, i % 3 === 0 ? { amount: minimumBid(s) } : { maxAmount: max });
      if (!d.ok) continue;
      assert.ok(d.priceAfter >= last);
      assert.ok((s.leader?.max ?? 0) >= (s.currentPrice ?? 0), 'the leader never pays above its maximum');
      last = d.priceAfter;
    }
  });
});

describe('reserve', () => {
  test('bids below the reserve are accepted but the auction ends unsold', () => {
    const s = live({ reservePrice: 5000 });
    accepted(bid(s, 'a', { amount: 1000 }));
    accepted(bid(s, 'b', { amount: 2000 }));
    assert.equal(reserveMet(s), false);
    endAuction(s);
    assert.equal(s.outcome, 'unsold');
    assert.equal(s.winner, null);
    assert.equal(s.finalPrice, null);
    assert.equal(s.bidCount, 2, 'its bids are kept');
  });

  test('a maximum that meets the reserve lifts the price to the reserve', () => {
    const s = live({ reservePrice: 5000 });
    const a = accepted(bid(s, 'a', { maxAmount: 8000 }));
    assert.equal(a.priceAfter, 5000);
    assert.equal(reserveMet(s), true);
    endAuction(s);
    assert.equal(s.outcome, 'sold');
    assert.equal(s.winner?.id, 'a');
    assert.equal(s.finalPrice, 5000);
  });

  test('a leader raising its maximum to the reserve lifts the price to it', () => {
    const s = live({ reservePrice: 5000 });
    accepted(bid(s, 'a', { maxAmount: 2000 }));
    assert.equal(s.currentPrice, 1000);
    const raise = accepted(bid(s, 'a', { maxAmount: 6000 }));
    assert.equal(raise.priceAfter, 5000);
  });

  test('a maximum below the reserve does not jump', () => {
    const s = live({ reservePrice: 5000 });
    accepted(bid(s, 'a', { maxAmount: 4999 }));
    assert.equal(s.currentPrice, 1000);
  });
});

describe('buy-now', () => {
  test('without a reserve it is offered until the first bid', () => {
    const s = live({ buyNowPrice: 9000 });
    assert.equal(buyNowAvailable(s, T0), true);
    accepted(bid(s, 'a', { amount: 1000 }));
    assert.equal(buyNowAvailable(s, T0), false);
    refusedWith(decideBuyNow(s, { bidId: 'bid_x', bidder: actor('b') }, T0), 'buy_now_unavailable');
  });

  test('with a reserve it is offered until a bid meets the reserve', () => {
    const s = live({ reservePrice: 5000, buyNowPrice: 9000 });
    accepted(bid(s, 'a', { amount: 2000 }));
    assert.equal(buyNowAvailable(s, T0), true);
    accepted(bid(s, 'b', { amount: 5000 }));
    assert.equal(buyNowAvailable(s, T0), false);
  });

  test('buying now ends the auction at once, sold to the buyer at the buy-now price', () => {
    const s = live({ reservePrice: 5000, buyNowPrice: 9000 });
    accepted(bid(s, 'a', { amount: 2000 }));
    const seq = s.seq;
    const d = accepted(decideBuyNow(s, { bidId: 'bid_bn', bidder: actor('b') }, T0));
    assert.equal(d.seq, seq + 1);
    assert.equal(d.ended?.seq, seq + 2);
    assert.equal(s.status, 'ended');
    assert.equal(s.outcome, 'bought_now');
    assert.equal(s.winner?.id, 'b');
    assert.equal(s.finalPrice, 9000);
    refusedWith(bid(s, 'c', { amount: 9500 }), 'auction_not_live');
  });

  test('no buy-now price: refused', () => {
    refusedWith(decideBuyNow(live(), { bidId: 'bid_y', bidder: actor('b') }, T0), 'buy_now_unavailable');
  });
});

describe('soft close', () => {
  const end = T0 + 3_600_000;
  const window = (mode: 'extend' | 'reset', maxExtensions = 2) =>
    live({ softClose: { windowSeconds: 60, mode, extendSeconds: 30, maxExtensions } });

  test('extend: a bid inside the window adds extendSeconds to the end', () => {
    const s = window('extend');
    const d = accepted(bid(s, 'a', { amount: 1000 }, end - 10_000));
    assert.equal(d.extended?.endsAt, end + 30_000);
    assert.equal(d.extended?.seq, d.seq + 1);
    assert.equal(s.extensions, 1);
  });

  test('reset: a bid inside the window sets the end to now + extendSeconds, never backwards', () => {
    const s = window('reset');
    const d = accepted(bid(s, 'a', { amount: 1000 }, end - 10_000));
    assert.equal(d.extended?.endsAt, end + 20_000);
    // 50 s before the end, now + 30 s would move it backwards: it stays.
    const e = accepted(bid(s, 'b', { amount: 1100 }, end + 20_000 - 50_000));
    assert.equal(e.extended, undefined);
    assert.equal(s.endsAt, end + 20_000);
  });

  test('a bid outside the window does not extend', () => {
    const s = window('extend');
    assert.equal(accepted(bid(s, 'a', { amount: 1000 }, end - 61_000)).extended, undefined);
    assert.equal(s.endsAt, end);
  });

  test('extensions stop at maxExtensions', () => {
    const s = window('extend', 2);
    accepted(bid(s, 'a', { amount: 1000 }, end - 1000));
    accepted(bid(s, 'b', { amount: 1100 }, end + 29_000));
    const third = accepted(bid(s, 'a', { amount: 1200 }, end + 59_000));
    assert.equal(third.extended, undefined);
    assert.equal(s.extensions, 2);
    assert.equal(s.endsAt, end + 60_000);
  });

  test('sudden death: never extended', () => {
    const s = live({
      suddenDeath: true,
      softClose: { windowSeconds: 60, mode: 'extend', extendSeconds: 30, maxExtensions: 5 },
    });
    assert.equal(accepted(bid(s, 'a', { amount: 1000 }, end - 1000)).extended, undefined);
    assert.equal(s.endsAt, end);
  });

  test('a bid at or after the end is refused: the end is the server clock’s', () => {
    refusedWith(bid(live(), 'a', { amount: 1000 }, end), 'auction_not_live');
  });
});

describe('refusals', () => {
  test('currency mismatch', () => {
    const d = bid(live(), 'a', { amount: 1000, currency: 'USD' });
    refusedWith(d, 'currency_mismatch');
    if (!d.ok) assert.equal(d.refusal.error, 'invalid_request');
  });

  test('not live', () => {
    for (const status of ['draft', 'scheduled', 'ended', 'cancelled'] as const)
      refusedWith(bid(live({ status }), 'a', { amount: 1000 }), 'auction_not_live');
  });

  test('no amount', () => refusedWith(bid(live(), 'a', {}), 'amount_required'));
});

describe('lifecycle', () => {
  const all: Status[] = ['draft', 'scheduled', 'live', 'ended', 'cancelled'];
  const legal = new Set([
    'draft>scheduled',
    'draft>live',
    'draft>cancelled',
    'scheduled>draft',
    'scheduled>live',
    'scheduled>cancelled',
    'live>ended',
    'live>cancelled',
  ]);
  for (const from of all)
    for (const to of all)
      test(`${from} -> ${to}: ${legal.has(`${from}>${to}`) ? 'allowed' : 'refused'}`, () => {
        assert.equal(canTransition(from, to), legal.has(`${from}>${to}`));
      });

  test('seq counts every accepted bid and state change', () => {
    const s = live({ softClose: { windowSeconds: 60, mode: 'extend', extendSeconds: 30, maxExtensions: 5 } });
    const start = s.seq;
    accepted(bid(s, 'a', { amount: 1000 }));
    bid(s, 'b', { amount: 1 });
    accepted(bid(s, 'b', { amount: 1100 }, T0 + 3_599_000));
    endAuction(s);
    assert.equal(s.seq, start + 4, 'two bids, one extension, the end; the refusal takes none');
  });
});
