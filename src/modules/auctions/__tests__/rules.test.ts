import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { canTransition, endAuction, incrementAt, minimumBid, type Status } from '../rules.ts';
import { DEFAULT_INCREMENTS } from '../schema/config.ts';
import { accepted, bid, live, refusedWith, standing, T0 } from './rules-support.ts';

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
    assert.deepEqual(standing(s, b), { leading: false, priceAfter: 3100, leader: 'a' });
    const c = accepted(bid(s, 'c', { maxAmount: 6000 }));
    assert.deepEqual(standing(s, c), { leading: true, priceAfter: 5100, leader: 'c' });
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
    assert.deepEqual(standing(s, b), { leading: false, priceAfter: 5000, leader: 'a' });
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
