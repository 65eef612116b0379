import assert from 'node:assert/strict';
import { call } from '../../../../test/helper.ts';
import { defineIsolation } from '../../../../test/support/isolation-suite.ts';
import { actorNamed } from './support.ts';

/**
 * Analytics has no route that names a record: it ingests and counts the caller's events. Tenant B's events
 * carry the marker; A's queries, funnels and actions count none of them, and B's messageIds do not dedupe A's.
 */
export const isolation = defineIsolation({
  module: 'analytics',
  async setup({ inB, marker }) {
    const batch = [
      {
        event: marker,
        actor: actorNamed(`b:${marker}`),
        messageId: marker,
        roomId: marker,
        properties: { marker },
      },
      { event: 'shared', actor: actorNamed('b:viewer'), properties: { marker } },
    ];
    const sent = await inB('/v1/analytics/events', { batch }, { status: 202 });
    assert.equal(sent.json<{ accepted: number }>().accepted, 2, sent.body);
    return {};
  },
  cases: {},
  checks: {
    "A's queries, funnels and actions count none of B's events": async ({ t, asA, marker }) => {
      const range = { preset: 'today' };
      for (const payload of [
        { dateRange: range, metrics: ['events', 'uniques'] },
        { dateRange: range, event: [marker, 'shared'], interval: 'hour' },
        { dateRange: range, breakdown: 'marker' },
        { dateRange: range, breakdown: 'roomId' },
        { dateRange: range, filters: [{ property: 'marker', op: 'eq', value: marker }] },
      ]) {
        const res = await call(t.app, {
          method: 'POST',
          url: '/v1/analytics/query',
          headers: asA.apiKey(),
          payload,
        });
        assert.equal(res.statusCode, 200, res.body);
        assert.doesNotMatch(res.body, new RegExp(marker));
        assert.equal(res.json<{ totals: { events: number } }>().totals.events, 0, JSON.stringify(payload));
      }
      const funnel = await call(t.app, {
        method: 'POST',
        url: '/v1/analytics/funnel',
        headers: asA.apiKey(),
        payload: { steps: [{ event: marker }, { event: 'shared' }], dateRange: range },
      });
      assert.deepEqual(
        funnel.json<{ steps: { actors: number }[] }>().steps.map((s) => s.actors),
        [0, 0],
      );
      const action = await call(t.app, {
        method: 'POST',
        url: '/v1/actions/analytics_query',
        headers: asA.apiKey(),
        payload: { arguments: { dateRange: range, event: marker } },
      });
      assert.equal(action.statusCode, 200, action.body);
      assert.equal(
        action.json<{ result: { totals: { events: number } } }>().result.totals.events,
        0,
        action.body,
      );
    },
    "B's messageIds do not dedupe A's": async ({ t, asA, marker }) => {
      const mine = await call(t.app, {
        method: 'POST',
        url: '/v1/analytics/events',
        headers: asA.apiKey(),
        payload: { event: 'mine', actor: actorNamed('a:viewer'), messageId: marker },
      });
      assert.equal(mine.json<{ accepted: number }>().accepted, 1, "B's messageId is not A's");
    },
  },
});
