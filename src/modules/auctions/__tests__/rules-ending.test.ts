import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buyNowAvailable, decideBuyNow, endAuction, reserveMet } from '../rules.ts';
import { accepted, actor, bid, live, refusedWith, T0 } from './rules-support.ts';

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
