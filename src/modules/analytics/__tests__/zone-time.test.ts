import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bucketBoundaries, localIso } from '../time/local-time.ts';
import { ZoneTime } from '../time/zone-time.ts';

const HOUR = 3_600_000;

describe('ZoneTime: offsets learnt over a span', () => {
  for (const zone of [
    'Europe/Berlin',
    'America/New_York',
    'Australia/Lord_Howe',
    'Asia/Kolkata',
    'America/Santiago',
    'UTC',
  ]) {
    test(`${zone}: every hour of two years has the offset Intl gives`, () => {
      const from = Date.UTC(2025, 0, 1);
      const to = Date.UTC(2027, 0, 1);
      const learnt = new ZoneTime(zone).span(from, to);
      const asked = new ZoneTime(zone);
      for (let t = from; t < to; t += HOUR - 7_000) {
        assert.equal(learnt.offsetAt(t), asked.offsetAt(t), new Date(t).toISOString());
      }
    });
  }

  test('hour buckets in a zone with half-hour DST (Lord Howe) are whole local hours', () => {
    const zone = new ZoneTime('Australia/Lord_Howe').span(Date.UTC(2026, 3, 4), Date.UTC(2026, 3, 6));
    const bounds = bucketBoundaries(zone, 'hour', Date.UTC(2026, 3, 4), Date.UTC(2026, 3, 6), 100);
    for (const b of bounds) assert.equal(zone.wallMs(b) % HOUR, 0, new Date(b).toISOString());
    assert.ok(
      bounds.some((b, i) => i > 0 && b - (bounds[i - 1] ?? 0) === 1.5 * HOUR),
      'the hour that lasts 90 minutes',
    );
  });

  test('a day whose midnight does not exist (Santiago springs forward at 24:00) starts at 01:00', () => {
    const from = Date.UTC(2026, 8, 5, 4);
    const to = Date.UTC(2026, 8, 7, 3);
    const zone = new ZoneTime('America/Santiago').span(from, to);
    const bounds = bucketBoundaries(zone, 'day', from, to, 10);
    assert.deepEqual(
      bounds.map((b) => localIso(zone, b)),
      ['2026-09-05T00:00:00-04:00', '2026-09-06T01:00:00-03:00', '2026-09-07T00:00:00-03:00'],
    );
  });
});
