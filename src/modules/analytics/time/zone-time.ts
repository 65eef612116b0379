import { InvalidRequest } from '../../../core/http/errors.ts';
import { utcMs } from './date-bounds.ts';

/**
 * Calendar arithmetic in an IANA time zone, from the runtime's own time-zone data (Intl): the instants
 * at which local hours, days, weeks and months start, across daylight-saving changes. Bucket boundaries
 * are computed here and handed to SQL as instants, so PostgreSQL and the embedded database bucket alike.
 */

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
