import { InvalidRequest } from '../../core/http/errors.ts';
import { utcMs } from './date-bounds.ts';

/**
 * Calendar arithmetic in an IANA time zone, from the runtime's own time-zone data (Intl): the instants
 * at which local hours, days, weeks and months start, across daylight-saving changes. Bucket boundaries
 * are computed here and handed to SQL as instants, so PostgreSQL and the embedded database bucket alike.
 */

const HOUR = 3_600_000;
const DAY = 86_400_000;

export interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      // With the era, 1 BC (year 0 of `Date`) is told from 1 AD.
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, format);
  }
  return format;
}

/** The zone's name as Intl knows it, or 400 naming the field. */
export function checkedZone(zone: string, field = '/body/timezone'): string {
  if (!/^[A-Za-z0-9_+\-/]{1,64}$/.test(zone)) throw badZone(zone, field);
  try {
    formatter(zone);
  } catch {
    throw badZone(zone, field);
  }
  return zone;
}

function badZone(zone: string, field: string): InvalidRequest {
  return new InvalidRequest(
    `unknown time zone ${JSON.stringify(zone)}: use an IANA name such as Europe/Berlin`,
    [{ field, message: 'not an IANA time zone name', code: 'invalid_timezone' }],
  );
}

/** The zone's offset from UTC at instant `t`, in ms, as Intl says (one formatter call). */
function intlOffset(zone: string, t: number): number {
  const parts = new Map<string, number>();
  let bc = false;
  for (const part of formatter(zone).formatToParts(new Date(t))) {
    if (part.type === 'era') bc = part.value === 'BC';
    else if (part.type !== 'literal') parts.set(part.type, Number(part.value));
  }
  const year = parts.get('year') ?? 1970;
  const wall = utcMs(
    bc ? 1 - year : year,
    (parts.get('month') ?? 1) - 1,
    parts.get('day') ?? 1,
    parts.get('hour') ?? 0,
    parts.get('minute') ?? 0,
    parts.get('second') ?? 0,
  );
  return wall - Math.floor(t / 1000) * 1000;
}

const WEEK = 7 * DAY;

/**
 * A time zone's offsets, learnt over a span with few Intl calls: sampled weekly (no zone changes its
 * offset twice within a week), and each change found to the second by bisection. Bucketing 90 days by the
 * hour then costs some 30 formatter calls instead of thousands. Outside the span it asks Intl.
 */
export class ZoneTime {
  private changes: { at: number; offset: number }[] = [];
  private from = Number.POSITIVE_INFINITY;
  private to = Number.NEGATIVE_INFINITY;

  constructor(readonly zone: string) {
    formatter(zone);
  }

  /** Learns the offsets over [from, to] (with a margin for the intervals that reach past it). */
  span(from: number, to: number): this {
    const start = from - 40 * DAY;
    const end = to + 40 * DAY;
    let at = start;
    let offset = intlOffset(this.zone, at);
    const changes = [{ at: Number.NEGATIVE_INFINITY, offset }];
    while (at < end) {
      const next = Math.min(at + WEEK, end);
      const nextOffset = intlOffset(this.zone, next);
      if (nextOffset !== offset) {
        let lo = Math.floor(at / 1000);
        let hi = Math.ceil(next / 1000);
        while (hi - lo > 1) {
          const mid = Math.floor((lo + hi) / 2);
          if (intlOffset(this.zone, mid * 1000) === offset) lo = mid;
          else hi = mid;
        }
        changes.push({ at: hi * 1000, offset: nextOffset });
      }
      at = next;
      offset = nextOffset;
    }
    this.changes = changes;
    this.from = start;
    this.to = end;
    return this;
  }

  offsetAt(t: number): number {
    if (t < this.from || t > this.to) return intlOffset(this.zone, t);
    let offset = this.changes[0]?.offset ?? 0;
    for (const change of this.changes) {
      if (change.at > t) break;
      offset = change.offset;
    }
    return offset;
  }

  /** The wall clock as if it were UTC, in ms (so differences of wall clocks are plain arithmetic). */
  wallMs(t: number): number {
    return t + this.offsetAt(t);
  }

  wall(t: number): Wall {
    const d = new Date(this.wallMs(t));
    return {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: d.getUTCHours(),
      minute: d.getUTCMinutes(),
      second: d.getUTCSeconds(),
    };
  }
}

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
