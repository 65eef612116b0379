import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { bearer } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { enableModule } from '../../../../test/support/module-settings.ts';
import { appSuite } from '../../../../test/support/suite.ts';
import { ManualClock } from '../../../core/clock.ts';
import { eventsAt, ingest, keyOf, postQuery, query } from './support.ts';

/**
 * Buckets across daylight-saving changes, with expected counts worked out by hand from the zones' rules:
 * Berlin springs forward 2026-03-29 01:00Z (02:00 CET -> 03:00 CEST) and falls back 2026-10-25 01:00Z
 * (03:00 CEST -> 02:00 CET); New York springs forward 2026-03-08 07:00Z and falls back 2026-11-01 06:00Z.
 */
describe('analytics buckets in a time zone', () => {
  const s = appSuite({ clock: new ManualClock(Date.UTC(2026, 10, 20)) });

  before(async () => {
    const key = keyOf(s.tenant.apiKey);
    await ingest(s.t, key, {
      batch: [
        ...eventsAt('berlin-spring', [
          '2026-03-28T22:59:00Z', // 23:59 CET, Mar 28
          '2026-03-28T23:00:00Z', // 00:00 CET, Mar 29
          '2026-03-29T00:30:00Z', // 01:30 CET
          '2026-03-29T01:00:00Z', // 03:00 CEST (02:00-03:00 does not exist)
          '2026-03-29T21:59:00Z', // 23:59 CEST, Mar 29
          '2026-03-29T22:00:00Z', // 00:00 CEST, Mar 30
        ]),
        ...eventsAt('berlin-fall', [
          '2026-10-24T21:59:00Z', // 23:59 CEST, Oct 24
          '2026-10-24T22:00:00Z', // 00:00 CEST, Oct 25
          '2026-10-25T00:30:00Z', // 02:30 CEST (first 02:xx)
          '2026-10-25T01:30:00Z', // 02:30 CET (second 02:xx)
          '2026-10-25T22:59:00Z', // 23:59 CET, Oct 25
          '2026-10-25T23:00:00Z', // 00:00 CET, Oct 26
        ]),
        ...eventsAt('ny-spring', [
          '2026-03-02T04:59:00Z', // Sun Mar 1 23:59 EST: week of Feb 23
          '2026-03-08T06:30:00Z', // Sun Mar 8 01:30 EST: week of Mar 2
          '2026-03-09T03:30:00Z', // Sun Mar 8 23:30 EDT: week of Mar 2
          '2026-03-09T04:30:00Z', // Mon Mar 9 00:30 EDT: week of Mar 9
        ]),
        ...eventsAt('ny-fall', [
          '2026-11-01T03:59:00Z', // Oct 31 23:59 EDT
          '2026-11-01T05:30:00Z', // Nov 1 01:30 EDT
          '2026-11-01T06:30:00Z', // Nov 1 01:30 EST
          '2026-11-02T04:59:00Z', // Nov 1 23:59 EST
          '2026-11-02T05:00:00Z', // Nov 2 00:00 EST
        ]),
      ],
    });
  });

  /** The events named, in `interval` buckets of the zone's local time over [from, to). */
  const inZone = (
    event: string | string[],
    interval: string,
    timezone: string,
    [from, to]: [string, string],
  ) => query(s.t, s.tenant.apiKey, { event, interval, timezone, dateRange: { from, to } });
  const series = (answer: Awaited<ReturnType<typeof query>>) =>
    (answer.buckets ?? []).map((b) => [b.startLocal, b.values.events]);

  test('Berlin days across spring forward: the 23-hour day holds its four events', async () => {
    const answer = await inZone('berlin-spring', 'day', 'Europe/Berlin', [
      '2026-03-28T00:00:00+01:00',
      '2026-03-31T00:00:00+02:00',
    ]);
    assert.deepEqual(series(answer), [
      ['2026-03-28T00:00:00+01:00', 1],
      ['2026-03-29T00:00:00+01:00', 4],
      ['2026-03-30T00:00:00+02:00', 1],
    ]);
    const day = answer.buckets?.[1];
    assert.deepEqual([day?.start, day?.end], ['2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z']);
    assert.equal(answer.totals.events, 6);
    assert.equal(answer.timezone, 'Europe/Berlin');
  });

  test('Berlin hours on the spring-forward day: 23 buckets, 02:00 skipped', async () => {
    const answer = await inZone('berlin-spring', 'hour', 'Europe/Berlin', [
      '2026-03-29T00:00:00+01:00',
      '2026-03-30T00:00:00+02:00',
    ]);
    const buckets = series(answer);
    assert.equal(buckets.length, 23);
    assert.deepEqual(buckets.slice(0, 4), [
      ['2026-03-29T00:00:00+01:00', 1],
      ['2026-03-29T01:00:00+01:00', 1],
      ['2026-03-29T03:00:00+02:00', 1],
      ['2026-03-29T04:00:00+02:00', 0],
    ]);
    assert.deepEqual(buckets[22], ['2026-03-29T23:00:00+02:00', 1]);
    assert.equal(
      buckets.reduce((n, [, v]) => n + Number(v), 0),
      4,
    );
  });

  test('Berlin across fall back: a 25-hour day, and 02:00 twice among its hours', async () => {
    const days = await inZone('berlin-fall', 'day', 'Europe/Berlin', [
      '2026-10-24T00:00:00+02:00',
      '2026-10-27T00:00:00+01:00',
    ]);
    assert.deepEqual(series(days), [
      ['2026-10-24T00:00:00+02:00', 1],
      ['2026-10-25T00:00:00+02:00', 4],
      ['2026-10-26T00:00:00+01:00', 1],
    ]);
    assert.equal(
      Date.parse(days.buckets?.[1]?.end ?? '') - Date.parse(days.buckets?.[1]?.start ?? ''),
      25 * 3_600_000,
    );
    const hours = await inZone('berlin-fall', 'hour', 'Europe/Berlin', [
      '2026-10-25T00:00:00+02:00',
      '2026-10-26T00:00:00+01:00',
    ]);
    const buckets = series(hours);
    assert.equal(buckets.length, 25);
    assert.deepEqual(buckets.slice(1, 5), [
      ['2026-10-25T01:00:00+02:00', 0],
      ['2026-10-25T02:00:00+02:00', 1],
      ['2026-10-25T02:00:00+01:00', 1],
      ['2026-10-25T03:00:00+01:00', 0],
    ]);
    assert.deepEqual(buckets[0], ['2026-10-25T00:00:00+02:00', 1]);
    assert.deepEqual(buckets[24], ['2026-10-25T23:00:00+01:00', 1]);
  });

  test('New York weeks (from Monday) across spring forward', async () => {
    const answer = await inZone('ny-spring', 'week', 'America/New_York', [
      '2026-02-23T00:00:00-05:00',
      '2026-03-16T00:00:00-04:00',
    ]);
    assert.deepEqual(series(answer), [
      ['2026-02-23T00:00:00-05:00', 1],
      ['2026-03-02T00:00:00-05:00', 2],
      ['2026-03-09T00:00:00-04:00', 1],
    ]);
    const week = answer.buckets?.[1];
    assert.equal(Date.parse(week?.end ?? '') - Date.parse(week?.start ?? ''), 7 * 86_400_000 - 3_600_000);
  });

  test('New York days and hours across fall back', async () => {
    const days = await inZone('ny-fall', 'day', 'America/New_York', [
      '2026-10-31T00:00:00-04:00',
      '2026-11-03T00:00:00-05:00',
    ]);
    assert.deepEqual(series(days), [
      ['2026-10-31T00:00:00-04:00', 1],
      ['2026-11-01T00:00:00-04:00', 3],
      ['2026-11-02T00:00:00-05:00', 1],
    ]);
    const hours = await inZone('ny-fall', 'hour', 'America/New_York', [
      '2026-11-01T00:00:00-04:00',
      '2026-11-02T00:00:00-05:00',
    ]);
    const buckets = series(hours);
    assert.equal(buckets.length, 25);
    assert.deepEqual(buckets.slice(0, 4), [
      ['2026-11-01T00:00:00-04:00', 0],
      ['2026-11-01T01:00:00-04:00', 1],
      ['2026-11-01T01:00:00-05:00', 1],
      ['2026-11-01T02:00:00-05:00', 0],
    ]);
    assert.deepEqual(buckets[24], ['2026-11-01T23:00:00-05:00', 1]);
  });

  test('the same events in UTC fall on other days', async () => {
    const answer = await query(s.t, s.tenant.apiKey, {
      event: 'berlin-spring',
      interval: 'day',
      dateRange: { from: '2026-03-28T00:00:00Z', to: '2026-03-30T00:00:00Z' },
    });
    assert.deepEqual(series(answer), [
      ['2026-03-28T00:00:00+00:00', 2],
      ['2026-03-29T00:00:00+00:00', 4],
    ]);
    assert.equal(answer.timezone, 'UTC');
  });

  test('months (Mar 30 and Oct 26 are still in their month), empty buckets zero-filled', async () => {
    const answer = await inZone(['berlin-spring', 'berlin-fall'], 'month', 'Europe/Berlin', [
      '2026-03-01T00:00:00+01:00',
      '2026-11-01T00:00:00+01:00',
    ]);
    assert.deepEqual(
      series(answer).map(([, n]) => n),
      [6, 0, 0, 0, 0, 0, 0, 6],
    );
  });

  test('an unknown time zone, an empty range, too many buckets: 400 with the field', async () => {
    for (const [payload, code] of [
      [{ timezone: 'Mars/Olympus', dateRange: { preset: 'today' } }, 'invalid_timezone'],
      [{ dateRange: { from: '2026-03-02T00:00:00Z', to: '2026-03-01T00:00:00Z' } }, 'empty_range'],
      [
        { interval: 'hour', dateRange: { from: '2025-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' } },
        'too_many_buckets',
      ],
      [{ dateRange: { preset: 'today', from: '2026-01-01T00:00:00Z' } }, 'ambiguous_range'],
      [{ dateRange: {} }, 'required'],
    ] as const) {
      const res = await postQuery(s.t, keyOf(s.tenant.apiKey), payload);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json<{ details: { code: string }[] }>().details[0]?.code, code, res.body);
    }
  });

  test('presets are local days: last_7d in Berlin starts at a local midnight', async () => {
    const answer = await query(s.t, s.tenant.apiKey, {
      dateRange: { preset: 'last_7d' },
      timezone: 'Europe/Berlin',
    });
    // Now is 2026-11-20T00:00Z = 01:00 CET on Nov 20: the 7 days are Nov 14..20.
    assert.deepEqual(answer.dateRange, { from: '2026-11-13T23:00:00.000Z', to: '2026-11-20T00:00:00.000Z' });
  });

  test('the tenant’s time zone is a setting of the module, read back as set; a malformed name is refused', async () => {
    await enableModule(s.t, s.tenant, 'analytics', { timezone: 'America/New_York' });
    const modules = await call(s.t.app, {
      method: 'GET',
      url: `/api/console/tenants/${s.tenant.tenantId}/modules?limit=100`,
      headers: bearer(s.tenant.ownerToken),
    });
    const analytics = modules
      .json<{ data: { module: string; config: { timezone?: string } }[] }>()
      .data.find((m) => m.module === 'analytics');
    assert.equal(analytics?.config.timezone, 'America/New_York', modules.body);
    const bad = await call(s.t.app, {
      method: 'PUT',
      url: `/api/console/tenants/${s.tenant.tenantId}/modules/analytics`,
      headers: bearer(s.tenant.ownerToken),
      payload: { enabled: true, config: { timezone: 'New York; drop' } },
    });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.match(bad.body, /timezone/);
  });
});
