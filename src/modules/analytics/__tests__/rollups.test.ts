import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { appSuite } from '../../../../test/support/suite.ts';
import { ManualClock } from '../../../core/clock.ts';
import { postgresStore } from '../postgres-store.ts';
import { seriesQuery } from '../query-input.ts';
import { actorNamed, contextIn, ingest, keyOf } from './support.ts';

const START = Date.UTC(2026, 8, 1);

/** A count of events over the seeded two months (UTC, up to 10 breakdown rows), with `over` on top. */
function eventsQuery(ctx: ReturnType<typeof contextIn>, over: Record<string, unknown>) {
  return seriesQuery(ctx, {
    metrics: ['events'],
    dateRange: { from: '2026-09-01T00:00:00Z', to: '2026-11-01T00:00:00Z' },
    timezone: 'UTC',
    breakdownLimit: 10,
    ...over,
  });
}

/** Rollups answer counts over long ranges: the same queries on raw rows must give the same numbers. */
describe('analytics hourly rollups', () => {
  const s = appSuite({ clock: new ManualClock(Date.UTC(2026, 10, 20)) });

  before(async () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const rooms = ['room-a', 'room-b', 'room-c', 'room-d', 'room-e'];
    for (let batch = 0; batch < 6; batch++) {
      const answer = await ingest(s.t, keyOf(s.tenant.apiKey), {
        batch: Array.from({ length: 400 }, () => {
          const room = next() < 0.15 ? undefined : rooms[Math.floor(next() ** 2 * rooms.length)];
          return {
            event: next() < 0.7 ? 'Watched' : 'Bid',
            actor: actorNamed(`test:u${Math.floor(next() * 50)}`),
            timestamp: new Date(START + Math.floor(next() * 60 * 86_400) * 1000).toISOString(),
            ...(room === undefined ? {} : { roomId: room }),
          };
        }),
      });
      assert.equal(answer.accepted, 400);
    }
  });

  const cases: [string, Record<string, unknown>][] = [
    ['days in Berlin over a DST change', { interval: 'day', timezone: 'Europe/Berlin' }],
    ['hours in New York', { interval: 'hour', timezone: 'America/New_York' }],
    ['weeks, two events', { interval: 'week', event: ['Watched', 'Bid'] }],
    ['months, one event', { interval: 'month', event: 'Bid', timezone: 'Europe/Berlin' }],
    ['a total', {}],
  ];
  cases.push([
    'days, a range that starts and ends within hours (the ends read raw)',
    { interval: 'day', dateRange: { from: '2026-09-01T00:17:00Z', to: '2026-10-31T13:45:10.500Z' } },
  ]);
  cases.push([
    'a total within hours',
    { dateRange: { from: '2026-09-03T10:59:59Z', to: '2026-10-02T08:00:00.001Z' } },
  ]);
  for (const [name, extra] of cases) {
    test(`${name}: rollups equal raw rows`, async () => {
      const ctx = contextIn(s.t, s.tenant.tenantId);
      const query = eventsQuery(ctx, extra);
      const rolled = await postgresStore.series(ctx, query);
      const raw = await postgresStore.series(ctx, query, { source: 'raw' });
      assert.equal(rolled.source, 'rollup');
      assert.equal(raw.source, 'raw');
      assert.deepEqual(rolled, { ...raw, source: 'rollup' });
      assert.ok((raw.totals.events ?? 0) > 0);
    });
  }

  test('uniques, filters and breakdowns read raw rows', async () => {
    const ctx = contextIn(s.t, s.tenant.tenantId);
    for (const extra of [
      { metrics: ['uniques'] },
      { filters: [{ property: 'roomId', op: 'eq' as const, value: 'room-a' }] },
      { breakdown: 'roomId' },
    ]) {
      const query = eventsQuery(ctx, { interval: 'day', breakdownLimit: 3, ...extra });
      assert.equal((await postgresStore.series(ctx, query)).source, 'raw', JSON.stringify(extra));
    }
  });

  test('a zone with a half-hour offset reads raw rows for hour buckets, and agrees with the rollups by day', async () => {
    const ctx = contextIn(s.t, s.tenant.tenantId);
    const hours = eventsQuery(ctx, {
      dateRange: { from: '2026-09-01T00:00:00Z', to: '2026-09-03T00:00:00Z' },
      timezone: 'Asia/Kolkata',
      interval: 'hour',
    });
    assert.equal((await postgresStore.series(ctx, hours)).source, 'raw');
    const days = eventsQuery(ctx, {
      dateRange: { from: '2026-09-01T00:00:00Z', to: '2026-10-01T00:00:00Z' },
      timezone: 'Europe/London',
      interval: 'day',
    });
    const rolled = await postgresStore.series(ctx, days);
    assert.equal(rolled.source, 'rollup');
    assert.deepEqual(rolled, {
      ...(await postgresStore.series(ctx, days, { source: 'raw' })),
      source: 'rollup',
    });
  });
});
