import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestTenant, type TestTenant } from '../../../../test/factories.ts';
import { buildTestApp, call, type TestApp } from '../../../../test/helper.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { ManualClock } from '../../../core/clock.ts';
import { AuctionScheduler } from '../scheduler.ts';
import {
  type AuctionBody,
  bidder,
  eventsOf,
  keyOf,
  liveAuction,
  makeAuction,
  placeBid,
  post,
} from './support.ts';

const HOUR = 3_600_000;
/**
 * Far ahead of the real clock: on a shared PostgreSQL, schedulers of other test files (real clock) never
 * find these auctions due, and this one serves its own tenants only.
 */
const FUTURE = Date.UTC(2031, 5, 1, 12);

/**
 * The app's auction scheduler, on the injected clock, serving `tenants` only; the app's other workers stay
 * off (a webhook worker would claim other test files' deliveries on a shared database).
 */
function runScheduler(t: TestApp, tenants: ReadonlySet<string>): AuctionScheduler {
  const scheduler = new AuctionScheduler({ ...t.app.services, log: t.app.log }, { tenantIds: tenants });
  t.app.services.workers.add('auctions', scheduler);
  scheduler.start();
  return scheduler;
}

async function status(t: TestApp, key: string, id: string): Promise<AuctionBody> {
  const res = await call(t.app, { method: 'GET', url: `/v1/auctions/${id}`, headers: keyOf(key) });
  return res.json<AuctionBody>();
}

describe('auctions scheduler (injected clock, no request arriving)', () => {
  let clock: ManualClock;
  let t: TestApp;
  let tenant: TestTenant;
  let key: string;
  let scheduler: AuctionScheduler;

  before(async () => {
    clock = new ManualClock(FUTURE);
    t = await buildTestApp({ clock });
    tenant = await createTestTenant(t);
    key = tenant.apiKey;
    scheduler = runScheduler(t, new Set([tenant.tenantId]));
  });
  after(async () => {
    await scheduler.stop();
    await t.close();
  });

  test('a scheduled auction starts at startsAt and an hour-long one ends at endsAt', async () => {
    const startsAt = new Date(clock.now() + HOUR).toISOString();
    const a = await makeAuction(t, key, { durationSeconds: 3600, suddenDeath: true });
    const scheduled = await post(t, key, `/v1/auctions/${a.id}/schedule`, { startsAt });
    assert.equal(scheduled.statusCode, 200, scheduled.body);
    clock.advance(HOUR - 1);
    // Nothing is due yet: a look now leaves it scheduled.
    assert.equal((await status(t, key, a.id)).status, 'scheduled');
    clock.advance(1);
    const live = await eventually('the auction to start', async () => {
      const s = await status(t, key, a.id);
      return s.status === 'live' && s;
    });
    assert.equal(live.endsAt, new Date(Date.parse(startsAt) + HOUR).toISOString());
    await placeBid(t, key, a.id, 'ann', { maxAmount: 4000 });
    await placeBid(t, key, a.id, 'bob', { maxAmount: 2500 });
    clock.advance(HOUR);
    const ended = await eventually('the auction to end', async () => {
      const s = await status(t, key, a.id);
      return s.status === 'ended' && s;
    });
    assert.equal(ended.outcome, 'sold');
    assert.deepEqual(ended.winner, bidder('ann'));
    assert.equal(ended.finalPrice, 2600);
    const events = await eventsOf(t, key, 'auction.ended', a.id);
    assert.equal(events.length, 1);
    assert.equal(events[0]?.data.finalPrice, 2600);
    assert.equal((await eventsOf(t, key, 'auction.started', a.id)).length, 1);
  });

  test('no bid meeting the reserve: ended unsold with its bids kept', async () => {
    const a = await liveAuction(t, key, { reservePrice: 5000, durationSeconds: 60 });
    await placeBid(t, key, a.id, 'ann', { amount: 1000 });
    clock.advance(60_000);
    const ended = await eventually('the auction to end', async () => {
      const s = await status(t, key, a.id);
      return s.status === 'ended' && s;
    });
    assert.equal(ended.outcome, 'unsold');
    assert.equal(ended.winner, null);
    assert.equal(ended.bidCount, 1);
  });

  test('soft close through the API: extend moves the end; the scheduler ends it at the new end', async () => {
    const a = await liveAuction(t, key, {
      durationSeconds: 600,
      softClose: { windowSeconds: 60, mode: 'extend', extendSeconds: 120, maxExtensions: 1 },
    });
    const end = Date.parse(a.endsAt ?? '');
    clock.advance(600_000 - 30_000);
    const bid = await placeBid(t, key, a.id, 'ann', { amount: 1000 });
    assert.equal(bid.json<{ auction: AuctionBody }>().auction.endsAt, new Date(end + 120_000).toISOString());
    const extended = await eventsOf(t, key, 'auction.extended', a.id);
    assert.equal(extended.length, 1);
    clock.advance(30_000);
    // The old end has passed: the auction is still live.
    assert.equal((await status(t, key, a.id)).status, 'live');
    const late = await placeBid(t, key, a.id, 'bob', { amount: 1100 });
    assert.equal(late.statusCode, 201, 'still open after the old end');
    assert.equal(late.json<{ auction: AuctionBody }>().auction.extensions, 1, 'capped at maxExtensions');
    clock.advance(120_000);
    await eventually('the auction to end', async () => (await status(t, key, a.id)).status === 'ended');
  });

  test('reset mode sets the end to now + extendSeconds', async () => {
    const a = await liveAuction(t, key, {
      durationSeconds: 600,
      softClose: { windowSeconds: 60, mode: 'reset', extendSeconds: 45, maxExtensions: 3 },
    });
    clock.advance(600_000 - 10_000);
    const bid = await placeBid(t, key, a.id, 'ann', { amount: 1000 });
    assert.equal(
      bid.json<{ auction: AuctionBody }>().auction.endsAt,
      new Date(clock.now() + 45_000).toISOString(),
    );
    clock.advance(45_000);
    await eventually('the auction to end', async () => (await status(t, key, a.id)).status === 'ended');
  });

  test('a bid after the end is refused even before the scheduler has looked', async () => {
    const a = await liveAuction(t, key, { durationSeconds: 60, suddenDeath: true });
    // Past the end without firing timers: the bid itself sees the end and ends the auction.
    const stopped = t.app.services.clock as ManualClock;
    assert.equal(stopped, clock);
    const endAt = Date.parse(a.endsAt ?? '');
    const res = await (async () => {
      const original = clock.now.bind(clock);
      clock.now = () => endAt;
      try {
        return await placeBid(t, key, a.id, 'ann', { amount: 1000 });
      } finally {
        clock.now = original;
      }
    })();
    assert.equal(res.statusCode, 409);
    assert.equal(res.json<{ details: { code: string }[] }>().details[0]?.code, 'auction_not_live');
    const events = await eventsOf(t, key, 'auction.ended', a.id);
    assert.equal(events.length, 1, 'ended by the bid that saw it');
    clock.advance(60_000);
    await scheduler.idle();
    assert.equal((await eventsOf(t, key, 'auction.ended', a.id)).length, 1, 'and not again by the scheduler');
  });
});

describe('auctions scheduler across instances', () => {
  test('two instances on one database: each auction starts and ends exactly once, even when its instance dies', async () => {
    const clock = new ManualClock(FUTURE + HOUR * 24);
    const a = await buildTestApp({ clock });
    const b = await buildTestApp({ clock, db: a.db });
    const tenants = new Set<string>();
    const onA = runScheduler(a, tenants);
    const onB = runScheduler(b, tenants);
    try {
      const tenant = await createTestTenant(a);
      tenants.add(tenant.tenantId);
      const key = tenant.apiKey;
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const made = await makeAuction(a, key, { durationSeconds: 600 + i, suddenDeath: true });
        const res = await post(a, key, `/v1/auctions/${made.id}/schedule`, {
          startsAt: new Date(clock.now() + 60_000).toISOString(),
        });
        assert.equal(res.statusCode, 200, res.body);
        ids.push(made.id);
      }
      clock.advance(60_000);
      for (const id of ids)
        await eventually('every auction to start', async () => (await status(b, key, id)).status === 'live');
      await placeBid(a, key, ids[0] ?? '', 'ann', { amount: 1000 });
      // The instance that started them dies; the other ends them.
      await onA.stop();
      await a.app.close();
      clock.advance(700_000);
      for (const id of ids)
        await eventually('every auction to end', async () => (await status(b, key, id)).status === 'ended');
      for (const id of ids) {
        assert.equal((await eventsOf(b, key, 'auction.started', id)).length, 1, `${id} started once`);
        assert.equal((await eventsOf(b, key, 'auction.ended', id)).length, 1, `${id} ended once`);
      }
      assert.equal((await status(b, key, ids[0] ?? '')).outcome, 'sold');
    } finally {
      await onA.stop();
      await onB.stop();
      await b.close();
      await a.app.close();
      await a.db.close();
    }
  });
});
