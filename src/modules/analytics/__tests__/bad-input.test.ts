import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { call, type Response } from '../../../../test/helper.ts';
import { appSuite } from '../../../../test/support/suite.ts';
import { ManualClock } from '../../../core/clock.ts';
import { actorNamed, ingest, keyOf } from './support.ts';

/** Names every plain object inherits: a lookup that is not own-property-only finds them. */
const INHERITED = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  '__defineGetter__',
];
const range = { from: '2026-05-01T00:00:00Z', to: '2026-05-08T00:00:00Z' };

function expectBadRequest(res: Response, code: string, field: string): string {
  assert.equal(res.statusCode, 400, res.body);
  const body = res.json<{ error: string; message: string; details: { field: string; code: string }[] }>();
  assert.equal(body.error, 'invalid_request', res.body);
  assert.deepEqual(
    body.details.map((d) => [d.field, d.code]),
    [[field, code]],
    res.body,
  );
  return body.message;
}

describe('analytics: inherited property names and dates at the edge of what is represented', () => {
  const s = appSuite({ clock: new ManualClock(Date.UTC(2026, 4, 20)) });

  before(async () => {
    // Properties named like Object.prototype's members are ordinary properties (JSON.parse makes them own).
    await ingest(s.t, keyOf(s.tenant.apiKey), {
      batch: [
        {
          event: 'Odd',
          actor: actorNamed('test:ann'),
          timestamp: '2026-05-02T12:00:00Z',
          properties: JSON.parse('{"constructor":"x","toString":"y","valueOf":1}'),
        },
        {
          event: 'Odd',
          actor: actorNamed('test:bob'),
          timestamp: '2026-05-03T12:00:00Z',
          properties: { plan: 'a' },
        },
      ],
    });
  });

  const post = (url: string, payload: object) =>
    call(s.t.app, { method: 'POST', url, headers: keyOf(s.tenant.apiKey), payload });

  test('breakdown and filters by an inherited name: a property like any other on every route (was 500)', async () => {
    for (const name of INHERITED) {
      const filter = { property: name, op: 'eq', value: 'x' };
      const queried = await post('/v1/analytics/query', {
        event: 'Odd',
        dateRange: range,
        breakdown: name,
        filters: [filter],
      });
      assert.equal(queried.statusCode, 200, `${name}: ${queried.body}`);
      const answer = queried.json<{ totals: { events: number }; breakdown: { value: string | null }[] }>();
      assert.equal(answer.totals.events, name === 'constructor' ? 1 : 0, name);

      const broken = await post('/v1/analytics/query', { event: 'Odd', dateRange: range, breakdown: name });
      assert.equal(broken.statusCode, 200, `${name}: ${broken.body}`);
      const expected =
        name === 'constructor' ? 'x' : name === 'toString' ? 'y' : name === 'valueOf' ? '1' : null;
      assert.deepEqual(
        broken
          .json<{ breakdown: { value: string | null }[] }>()
          .breakdown.map((row) => row.value)
          .sort(),
        expected === null ? [null] : [expected, null].sort(),
        name,
      );

      const funnel = await post('/v1/analytics/funnel', {
        steps: [{ event: 'Odd', filters: [filter] }, { event: 'Odd' }],
        dateRange: range,
      });
      assert.equal(funnel.statusCode, 200, `${name}: ${funnel.body}`);

      const action = await post('/v1/actions/analytics_query', {
        arguments: { event: 'Odd', dateRange: range, breakdown: name, filters: [filter] },
      });
      assert.equal(action.statusCode, 200, `${name}: ${action.body}`);
    }
  });

  test('a range whose month buckets end past year 9999: 400 naming the limit (was 500)', async () => {
    const message = expectBadRequest(
      await post('/v1/analytics/query', {
        dateRange: { from: '9997-01-01T00:00:00Z', to: '9999-12-31T00:00:00Z' },
        interval: 'month',
      }),
      'date_out_of_range',
      '/body/dateRange',
    );
    assert.match(message, /9999-12-31/);
    // The same range without buckets, and one ending before the last month, are answered.
    for (const payload of [
      { dateRange: { from: '9997-01-01T00:00:00Z', to: '9999-12-31T00:00:00Z' } },
      { dateRange: { from: '9997-01-01T00:00:00Z', to: '9999-12-01T00:00:00Z' }, interval: 'month' },
    ]) {
      const res = await post('/v1/analytics/query', payload);
      assert.equal(res.statusCode, 200, res.body);
    }
  });

  test('dates before year 1 or at year 0, and leap seconds: 400, not 500', async () => {
    for (const [dateRange, code] of [
      [{ from: '0000-01-01T00:00:00Z', to: '0000-06-01T00:00:00Z' }, 'date_out_of_range'],
      [{ from: '0001-01-01T00:00:00+01:00', to: '0001-02-01T00:00:00Z' }, 'date_out_of_range'],
      [{ from: '2026-06-30T23:59:60Z', to: '2026-07-01T00:00:00Z' }, 'invalid_date'],
    ] as const) {
      for (const url of ['/v1/analytics/query', '/v1/analytics/funnel']) {
        const payload =
          url === '/v1/analytics/query'
            ? { dateRange, interval: 'day' }
            : { dateRange, steps: [{ event: 'Odd' }, { event: 'Odd' }] };
        expectBadRequest(await post(url, payload), code, '/body/dateRange');
      }
    }
    // The first day PostgreSQL and Date both hold, in UTC, is fine; in a zone west of UTC its day bucket
    // starts the day before: 400.
    const first = { from: '0001-01-01T00:00:00Z', to: '0001-01-03T00:00:00Z' };
    assert.equal((await post('/v1/analytics/query', { dateRange: first, interval: 'day' })).statusCode, 200);
    expectBadRequest(
      await post('/v1/analytics/query', { dateRange: first, interval: 'day', timezone: 'America/New_York' }),
      'date_out_of_range',
      '/body/dateRange',
    );
  });

  test('an event timestamp that is a leap second: refused as an invalid event, not a 500', async () => {
    const res = await call(s.t.app, {
      method: 'POST',
      url: '/v1/analytics/events',
      headers: keyOf(s.tenant.apiKey),
      payload: { event: 'Leap', actor: actorNamed('test:ann'), timestamp: '2026-06-30T23:59:60Z' },
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.json<{ message: string }>().message, /timestamp/);
  });
});
