import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { call } from '../../../../test/helper.ts';
import { appSuite } from '../../../../test/support/suite.ts';
import { ManualClock } from '../../../core/clock.ts';
import { actorNamed, ingest, keyOf, query } from './support.ts';

const range = { from: '2026-05-01T00:00:00Z', to: '2026-05-08T00:00:00Z' };

describe('analytics queries: uniques, sums, breakdowns, filters', () => {
  const s = appSuite({ clock: new ManualClock(Date.UTC(2026, 4, 20)) });

  before(async () => {
    const bid = (actor: string, day: number, plan: string | undefined, amount: unknown, extra = {}) => ({
      event: 'Bid',
      actor: actorNamed(`test:${actor}`),
      timestamp: `2026-05-0${day}T12:00:00Z`,
      properties: { ...(plan === undefined ? {} : { plan }), amount, ...extra },
    });
    await ingest(s.t, keyOf(s.tenant.apiKey), {
      batch: [
        // plan a: 5 events by ann (3) and bob (2); b: 3 by cy; c: 2 by ann, dee; d: 1 by dee; none: 1 by eve.
        bid('ann', 1, 'a', 10, { title: 'Signed Vinyl' }),
        bid('ann', 1, 'a', 20),
        bid('ann', 2, 'a', 30),
        bid('bob', 2, 'a', 40),
        bid('bob', 3, 'a', 50),
        bid('cy', 3, 'b', 5),
        bid('cy', 3, 'b', 5),
        bid('cy', 4, 'b', 'not a number'),
        bid('ann', 4, 'c', 1),
        bid('dee', 5, 'c', 2),
        bid('dee', 5, 'd', 3),
        bid('eve', 6, undefined, 4, { title: 'vinyl box' }),
        { event: 'View', anonymousId: 'anon-1', timestamp: '2026-05-01T01:00:00Z' },
        { event: 'View', anonymousId: 'anon-1', timestamp: '2026-05-02T01:00:00Z' },
        { event: 'View', anonymousId: 'anon-2', timestamp: '2026-05-02T01:00:00Z' },
      ],
    });
  });

  test('events, uniques (actors, anonymous ids too), sum and avg of a numeric property', async () => {
    const answer = await query(s.t, s.tenant.apiKey, {
      metrics: ['events', 'uniques', 'sum:amount', 'avg:amount'],
      event: 'Bid',
      dateRange: range,
      interval: 'day',
    });
    assert.deepEqual(answer.totals, { events: 12, uniques: 5, 'sum:amount': 170, 'avg:amount': 170 / 11 });
    assert.deepEqual(
      answer.buckets?.map((b) => [b.values.events, b.values.uniques]),
      [
        [2, 1],
        [2, 2],
        [3, 2],
        [2, 2],
        [2, 1],
        [1, 1],
        [0, 0],
      ],
    );
    assert.equal(answer.buckets?.[6]?.values['avg:amount'], null, 'no values: no average');
    const views = await query(s.t, s.tenant.apiKey, {
      metrics: ['uniques'],
      event: 'View',
      dateRange: range,
    });
    assert.equal(views.totals.uniques, 2);
    const all = await query(s.t, s.tenant.apiKey, { metrics: ['events'], dateRange: range });
    assert.equal(all.totals.events, 15, 'no event named: every event');
  });

  test('breakdown: top N by the first metric, then one other row', async () => {
    const answer = await query(s.t, s.tenant.apiKey, {
      metrics: ['events', 'uniques'],
      event: 'Bid',
      dateRange: range,
      breakdown: 'plan',
      breakdownLimit: 2,
    });
    assert.deepEqual(
      answer.breakdown?.map((r) => [r.value, r.other, r.values.events, r.values.uniques]),
      [
        ['a', false, 5, 2],
        ['b', false, 3, 1],
        // c (ann, dee), d (dee), missing (eve): dee counted once.
        [null, true, 4, 3],
      ],
    );
    assert.deepEqual(answer.totals, { events: 12, uniques: 5 });
    const wide = await query(s.t, s.tenant.apiKey, {
      event: 'Bid',
      dateRange: range,
      breakdown: 'plan',
      breakdownLimit: 10,
      interval: 'day',
    });
    assert.deepEqual(
      wide.breakdown?.map((r) => [r.value, r.other, r.values.events]),
      [
        ['a', false, 5],
        ['b', false, 3],
        ['c', false, 2],
        [null, false, 1],
        ['d', false, 1],
      ],
      'every value fits: no other row; ties by value, missing first',
    );
    assert.equal(wide.breakdown?.[0]?.buckets?.length, 7);
  });

  test('filters: eq, neq (missing too), in, contains (any case), gt, lt, ANDed', async () => {
    const count = async (filters: object[]) =>
      (await query(s.t, s.tenant.apiKey, { event: 'Bid', dateRange: range, filters })).totals.events;
    assert.equal(await count([{ property: 'plan', op: 'eq', value: 'a' }]), 5);
    assert.equal(await count([{ property: 'plan', op: 'neq', value: 'a' }]), 7);
    assert.equal(await count([{ property: 'plan', op: 'in', value: ['c', 'd'] }]), 3);
    assert.equal(await count([{ property: 'title', op: 'contains', value: 'VINYL' }]), 2);
    assert.equal(await count([{ property: 'amount', op: 'gt', value: 20 }]), 3);
    assert.equal(await count([{ property: 'amount', op: 'lt', value: 5 }]), 4);
    assert.equal(await count([{ property: 'amount', op: 'eq', value: 5 }]), 2);
    assert.equal(await count([{ property: 'actorId', op: 'eq', value: 'test:ann' }]), 4);
    assert.equal(
      await count([
        { property: 'plan', op: 'eq', value: 'a' },
        { property: 'amount', op: 'gt', value: 15 },
        { property: 'amount', op: 'lt', value: 45 },
      ]),
      3,
    );
  });

  test('a filter whose value does not fit its operator is a 400', async () => {
    for (const filter of [
      { property: 'plan', op: 'in', value: 'a' },
      { property: 'plan', op: 'eq', value: ['a'] },
      { property: 'amount', op: 'gt', value: '5' },
      { property: 'roomId', op: 'lt', value: 5 },
      { property: 'title', op: 'contains', value: 5 },
    ]) {
      const res = await call(s.t.app, {
        method: 'POST',
        url: '/v1/analytics/query',
        headers: keyOf(s.tenant.apiKey),
        payload: { dateRange: range, filters: [filter] },
      });
      assert.equal(res.statusCode, 400, `${JSON.stringify(filter)}: ${res.body}`);
      assert.equal(res.json<{ details: { code: string }[] }>().details[0]?.code, 'invalid_filter');
    }
  });

  test('the actions analytics_query and analytics_funnel answer as the routes do', async () => {
    const listed = await call(s.t.app, {
      method: 'GET',
      url: '/v1/actions',
      headers: keyOf(s.tenant.apiKey),
    });
    const names = JSON.stringify(listed.json());
    assert.match(names, /analytics_query/);
    assert.match(names, /analytics_funnel/);
    const asked = await call(s.t.app, {
      method: 'POST',
      url: '/v1/actions/analytics_query',
      headers: keyOf(s.tenant.apiKey),
      payload: { arguments: { metrics: ['uniques'], event: 'Bid', dateRange: range } },
    });
    assert.equal(asked.statusCode, 200, asked.body);
    assert.deepEqual(asked.json<{ result: { totals: unknown } }>().result.totals, { uniques: 5 });
    const funnel = await call(s.t.app, {
      method: 'POST',
      url: '/v1/actions/analytics_funnel',
      headers: keyOf(s.tenant.apiKey),
      payload: { arguments: { steps: [{ event: 'View' }, { event: 'View' }], dateRange: range } },
    });
    assert.equal(funnel.statusCode, 200, funnel.body);
    assert.deepEqual(
      funnel.json<{ result: { steps: { actors: number }[] } }>().result.steps.map((s) => s.actors),
      [2, 1],
      'anon-1 viewed again exactly one day (the default window) later',
    );
  });
});
