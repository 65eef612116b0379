import { InvalidRequest } from '../../../core/http/errors.ts';

/**
 * The instants a query may reach: years 0001 to 9999 UTC. PostgreSQL reads a `timestamptz` written by
 * `toISOString` only there (it has no year 0, and past 9999 `toISOString` writes `+010000-...`), and
 * `Date` holds far more. A bucket counts too: a month bucket holding 9999-12-31 would end in year 10000.
 */
export const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00Z');
export const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * `Date.UTC` for every year: it reads years 0..99 as 1900..1999, and queries may reach year 1. Month from 0,
 * as `Date.UTC` takes it; days, months and hours past their ends carry over.
 */
export function utcMs(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  d.setUTCHours(hour, minute, second, 0);
  return d.getTime();
}

const FIRST_TEXT = '0001-01-01T00:00:00Z';
const LAST_TEXT = '9999-12-31T23:59:59.999Z';

const outOfRange = (what: string, field: string) =>
  new InvalidRequest(`${what}: dates run from ${FIRST_TEXT} to ${LAST_TEXT} (UTC)`, [
    { field, message: `outside ${FIRST_TEXT} .. ${LAST_TEXT}`, code: 'date_out_of_range' },
  ]);

/**
 * A date-time the schema accepted, as an instant; 400 when `Date` cannot read it (a leap second such as
 * `23:59:60` passes the format) or it falls outside the years 0001..9999 UTC.
 */
export function instantOf(text: string, name: string, field: string): number {
  const t = Date.parse(text);
  if (Number.isNaN(t)) {
    throw new InvalidRequest(
      `${name} ${JSON.stringify(text)} is not a time the service can read (a leap second, :60, is not supported)`,
      [{ field, message: 'not a readable date-time', code: 'invalid_date' }],
    );
  }
  if (t < FIRST_INSTANT || t > LAST_INSTANT) throw outOfRange(`${name} ${text} is out of range`, field);
  return t;
}

/** 400 unless every instant (a range's ends and its bucket boundaries) is in the years 0001..9999 UTC. */
export function assertRepresentable(instants: readonly number[], field: string): void {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const t of instants) {
    first = Math.min(first, t);
    last = Math.max(last, t);
  }
  if (first < FIRST_INSTANT) {
    throw outOfRange(
      `the range's first bucket starts at ${new Date(first).toISOString()}, before the first date; start the range later or use a shorter interval`,
      field,
    );
  }
  if (last > LAST_INSTANT) {
    throw outOfRange(
      `the range's last bucket ends at ${new Date(last).toISOString()}, after the last date; end the range earlier or use a shorter interval`,
      field,
    );
  }
}
