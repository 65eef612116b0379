import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createTestTenant } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { appSuite } from '../../../../test/support/suite.ts';
import { ManualClock } from '../../../core/clock.ts';
import { actorNamed, ingest, keyOf } from './support.ts';

interface RandomEvent {
  event: string;
  actor: string;
  ts: number;
  amount: number;
}

/** A small deterministic generator (mulberry32), so a failure can be replayed from its seed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const START = Date.UTC(2026, 6, 1);
const HOUR = 3_600_000;
const STEPS = ['view', 'join', 'bid', 'pay'];

/**
 * The funnel by exhaustive search: for each actor, every choice of one event per step (each strictly
 * later than the one before, all within the window of the first, the first in the range), the deepest.
 */
function bruteForce(
  events: readonly RandomEvent[],
  steps: readonly { event: string; match: (e: RandomEvent) => boolean }[],
  from: number,
  to: number,
  windowMs: number,
): number[] {
  const byActor = new Map<string, RandomEvent[]>();
  for (const e of events) byActor.set(e.actor, [...(byActor.get(e.actor) ?? []), e]);
  const reached = steps.map(() => 0);
  for (const list of byActor.values()) {
    const inRange = list.filter((e) => e.ts >= from && e.ts < to);
    const deepest = (step: number, prev: number, first: number): number => {
      let best = step;
      for (const e of inRange) {
        const s = steps[step];
        if (s === undefined || e.event !== s.event || !s.match(e)) continue;
        if (e.ts <= prev || e.ts > first + windowMs) continue;
        best = Math.max(best, deepest(step + 1, e.ts, first));
        if (best === steps.length) return best;
      }
      return best;
    };
    let depth = 0;
    const first = steps[0];
    for (const e of inRange) {
      if (first === undefined || e.event !== first.event || !first.match(e)) continue;
      depth = Math.max(depth, deepest(1, e.ts, e.ts));
    }
    for (let i = 0; i < depth; i++) reached[i] = (reached[i] ?? 0) + 1;
  }
  return reached;
}

describe('analytics funnels', () => {
  const events: RandomEvent[] = [];

  const s = appSuite({ clock: new ManualClock(Date.UTC(2026, 6, 20)) });

  before(async () => {
    const next = random(20260701);
    // 40 actors, from very active to rarely seen, 1200 events over 4 days, on whole minutes so that equal times happen.
    for (let i = 0; i < 1200; i++) {
      events.push({
        event: STEPS[Math.floor(next() * STEPS.length)] ?? 'view',
        actor: `test:a${Math.floor(next() ** 3 * 40)}`,
        ts: START + Math.floor(next() * 4 * 24 * 60) * 60_000,
        amount: Math.floor(next() * 100),
      });
    }
    for (let i = 0; i < events.length; i += 300) {
      const answer = await ingest(s.t, keyOf(s.tenant.apiKey), {
        batch: events.slice(i, i + 300).map((e) => ({
          event: e.event,
          actor: actorNamed(e.actor),
          timestamp: new Date(e.ts).toISOString(),
          properties: { amount: e.amount },
        })),
      });
      assert.equal(answer.accepted, Math.min(300, events.length - i));
    }
  });

  const funnel = async (payload: object) => {
    const res = await call(s.t.app, {
      method: 'POST',
      url: '/v1/analytics/funnel',
      headers: keyOf(s.tenant.apiKey),
      payload,
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{
      steps: {
        event: string;
        actors: number;
        conversionFromFirst: number | null;
        conversionFromPrevious: number | null;
      }[];
    }>();
  };

  for (const [name, windowMs, from, to] of [
    ['a 2-hour window over the whole range', 2 * HOUR, START, START + 4 * 24 * HOUR],
    ['a 3-hour window over two days', 3 * HOUR, START + 24 * HOUR, START + 3 * 24 * HOUR],
    ['a 2-day window', 48 * HOUR, START, START + 4 * 24 * HOUR],
  ] as const) {
    test(`4 steps with ${name}, one step filtered: equal to the brute-force count`, async () => {
      const expected = bruteForce(
        events,
        [
          { event: 'view', match: () => true },
          { event: 'join', match: () => true },
          { event: 'bid', match: (e) => e.amount > 30 },
          { event: 'pay', match: () => true },
        ],
        from,
        to,
        windowMs,
      );
      const answer = await funnel({
        steps: [
          { event: 'view' },
          { event: 'join' },
          { event: 'bid', filters: [{ property: 'amount', op: 'gt', value: 30 }] },
          { event: 'pay' },
        ],
        dateRange: { from: new Date(from).toISOString(), to: new Date(to).toISOString() },
        windowSeconds: windowMs / 1000,
      });
      assert.deepEqual(
        answer.steps.map((s) => s.actors),
        expected,
      );
      assert.ok(
        (expected[3] ?? 0) > 0 && (expected[3] ?? 0) < (expected[0] ?? 0),
        `a telling case: ${expected}`,
      );
      const [first, second] = answer.steps;
      assert.equal(first?.conversionFromFirst, 1);
      assert.equal(second?.conversionFromPrevious, (expected[1] ?? 0) / (expected[0] ?? 1));
    });
  }

  test('steps out of order do not count; a repeated step needs a later event', async () => {
    const other = await createTestTenant(s.t);
    await ingest(s.t, keyOf(other.apiKey), {
      batch: [
        { event: 'b', actor: actorNamed('test:x'), timestamp: '2026-07-01T10:00:00Z' },
        { event: 'a', actor: actorNamed('test:x'), timestamp: '2026-07-01T11:00:00Z' },
        { event: 'a', actor: actorNamed('test:y'), timestamp: '2026-07-01T10:00:00Z' },
        { event: 'a', actor: actorNamed('test:y'), timestamp: '2026-07-01T10:00:00Z' },
        { event: 'a', actor: actorNamed('test:z'), timestamp: '2026-07-01T10:00:00Z' },
        { event: 'a', actor: actorNamed('test:z'), timestamp: '2026-07-01T10:00:01Z' },
      ],
    });
    const res = await call(s.t.app, {
      method: 'POST',
      url: '/v1/analytics/funnel',
      headers: keyOf(other.apiKey),
      payload: { steps: [{ event: 'a' }, { event: 'a' }, { event: 'b' }], dateRange: { preset: 'last_30d' } },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      res.json<{ steps: { actors: number }[] }>().steps.map((s) => s.actors),
      [3, 1, 0],
    );
  });
});
