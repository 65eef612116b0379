import { InvalidRequest } from '../../../core/http/errors.ts';
import { utcMs } from './date-bounds.ts';
import type { ZoneTime } from './zone-time.ts';

/**
 * Local calendar time in a zone (see ZoneTime): where local hours, days, ISO weeks and months start,
 * query buckets, local ISO text and the date-range presets.
 */

const HOUR = 3_600_000;
const DAY = 86_400_000;

/**
 * The first instant whose local wall clock is at or after the given one: the wall time itself when it
 * exists once, its first occurrence when clocks go back, the moment clocks jump when it falls in the gap.
 */
export function localStart(zone: ZoneTime, year: number, month: number, day: number, hour = 0): number {
  const target = utcMs(year, month - 1, day, hour);
  const offsets = new Set([zone.offsetAt(target - DAY), zone.offsetAt(target), zone.offsetAt(target + DAY)]);
  const exact = [...offsets].map((o) => target - o).filter((t) => zone.wallMs(t) === target);
  if (exact.length > 0) return Math.min(...exact);
  // In a gap: the moment the clocks jumped over `target`.
  let lo = target - Math.max(...offsets);
  let hi = target - Math.min(...offsets);
  if (zone.wallMs(lo) >= target) return lo;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (zone.wallMs(mid) >= target) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** How far past a whole local hour instant `t` is, in ms. */
function minutesPast(zone: ZoneTime, t: number): number {
  return ((zone.wallMs(t) % HOUR) + HOUR) % HOUR;
}

/** The date `days` after year-month-day, as a calendar date. */
function addDays(year: number, month: number, day: number, days: number): [number, number, number] {
  const d = new Date(utcMs(year, month - 1, day + days));
  return [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()];
}

export type Interval = 'hour' | 'day' | 'week' | 'month';

/** The start of the local interval (hour, day, ISO week from Monday, month) that holds instant `t`. */
export function intervalStart(zone: ZoneTime, interval: Interval, t: number): number {
  const w = zone.wall(t);
  switch (interval) {
    case 'hour': {
      // The local hour's start: the wall clock's minutes and seconds back from t (keeps the right
      // occurrence of a repeated hour).
      return t - (((zone.wallMs(t) % HOUR) + HOUR) % HOUR);
    }
    case 'day':
      return localStart(zone, w.year, w.month, w.day);
    case 'week': {
      const weekday = new Date(utcMs(w.year, w.month - 1, w.day)).getUTCDay();
      const [y, m, d] = addDays(w.year, w.month, w.day, -((weekday + 6) % 7));
      return localStart(zone, y, m, d);
    }
    case 'month':
      return localStart(zone, w.year, w.month, 1);
  }
}

/** The start of the local interval after the one starting at `start`. */
export function nextIntervalStart(zone: ZoneTime, interval: Interval, start: number): number {
  if (interval === 'hour') {
    // Usually an hour later; around a half-hour change (Lord Howe) the next whole local hour is 30
    // minutes earlier or later than that.
    const next = start + HOUR;
    const r = minutesPast(zone, next);
    if (r === 0) return next;
    for (const candidate of [next - r, next + HOUR - r, next + 2 * HOUR - r]) {
      if (candidate > start && minutesPast(zone, candidate) === 0) return candidate;
    }
    return next;
  }
  const w = zone.wall(start);
  if (interval === 'month') {
    const d = new Date(utcMs(w.year, w.month, 1));
    return localStart(zone, d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  }
  // A day or week start may be later than midnight (a gap at midnight): step from the calendar date.
  const [y, m, d] = addDays(w.year, w.month, w.day, interval === 'day' ? 1 : 7);
  return localStart(zone, y, m, d);
}

/**
 * The boundaries of the buckets covering [from, to): the first is the start of the interval holding
 * `from`, the last is at or after `to`. At most `max` buckets, else 400.
 */
export function bucketBoundaries(
  zone: ZoneTime,
  interval: Interval,
  from: number,
  to: number,
  max: number,
): number[] {
  const bounds = [intervalStart(zone, interval, from)];
  let last = bounds[0] ?? from;
  while (last < to) {
    last = nextIntervalStart(zone, interval, last);
    bounds.push(last);
    if (bounds.length > max + 1) {
      throw new InvalidRequest(
        `more than ${max} ${interval} buckets: choose a longer interval or a shorter range`,
        [{ field: '/body/interval', message: `at most ${max} buckets`, code: 'too_many_buckets' }],
      );
    }
  }
  return bounds;
}

/** Instant `t` as local ISO 8601 with its offset, e.g. `2026-03-29T00:00:00+01:00`. */
export function localIso(zone: ZoneTime, t: number): string {
  const w = zone.wall(t);
  const offsetMinutes = Math.round(zone.offsetAt(t) / 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const p = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${p(w.year, 4)}-${p(w.month)}-${p(w.day)}T${p(w.hour)}:${p(w.minute)}:${p(w.second)}${sign}${p(Math.floor(abs / 60))}:${p(abs % 60)}`;
}

export type Preset =
  | 'today'
  | 'yesterday'
  | 'last_24h'
  | 'last_7d'
  | 'last_30d'
  | 'last_90d'
  | 'month_to_date'
  | 'last_12m';

/**
 * A preset as [from, to) in the zone, at `now`: `last_Nd` is the N local days ending with today (today
 * so far included), `last_12m` the 12 local months ending with this one, `last_24h` the 24 hours to now.
 */
export function presetRange(zone: ZoneTime, preset: Preset, now: number): [number, number] {
  const w = zone.wall(now);
  const daysBack = (n: number) => {
    const [y, m, d] = addDays(w.year, w.month, w.day, -(n - 1));
    return localStart(zone, y, m, d);
  };
  switch (preset) {
    case 'today':
      return [daysBack(1), now];
    case 'yesterday':
      return [daysBack(2), daysBack(1)];
    case 'last_24h':
      return [now - DAY, now];
    case 'last_7d':
      return [daysBack(7), now];
    case 'last_30d':
      return [daysBack(30), now];
    case 'last_90d':
      return [daysBack(90), now];
    case 'month_to_date':
      return [localStart(zone, w.year, w.month, 1), now];
    case 'last_12m': {
      const d = new Date(utcMs(w.year, w.month - 12, 1));
      return [localStart(zone, d.getUTCFullYear(), d.getUTCMonth() + 1, 1), now];
    }
  }
}
