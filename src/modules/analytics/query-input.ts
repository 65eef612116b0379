import type { Static } from 'typebox';
import type { ServiceContext } from '../../core/context.ts';
import { InvalidRequest } from '../../core/http/errors.ts';
import type { DateRange, Filters, QueryInput } from './query-schema.ts';
import { QUERY_LIMITS } from './query-schema.ts';
import type { Filter, SeriesQuery } from './store.ts';
import { assertRepresentable, instantOf } from './time/date-bounds.ts';
import { bucketBoundaries, presetRange } from './time/local-time.ts';
import { checkedZone, ZoneTime } from './time/zone-time.ts';

const DAY = 86_400_000;

/** A query's date range as [from, to) instants, in its time zone for presets; 400 when it makes no sense. */
export function resolveRange(range: Static<typeof DateRange>, zone: string, now: number): [number, number] {
  checkedZone(zone);
  if (range.preset !== undefined) {
    if (range.from !== undefined || range.to !== undefined) {
      throw new InvalidRequest('give a preset or from/to, not both', [
        { field: '/body/dateRange', message: 'preset beside from/to', code: 'ambiguous_range' },
      ]);
    }
    return presetRange(new ZoneTime(zone), range.preset, now);
  }
  if (range.from === undefined) {
    throw new InvalidRequest('dateRange needs a preset (e.g. last_7d) or from', [
      { field: '/body/dateRange/from', message: 'required without a preset', code: 'required' },
    ]);
  }
  const from = instantOf(range.from, 'dateRange.from', '/body/dateRange');
  const to = range.to === undefined ? now : instantOf(range.to, 'dateRange.to', '/body/dateRange');
  if (!(from < to)) {
    throw new InvalidRequest('dateRange.from must be before dateRange.to', [
      { field: '/body/dateRange', message: 'from is not before to', code: 'empty_range' },
    ]);
  }
  if (to - from > QUERY_LIMITS.maxRangeDays * DAY) {
    throw new InvalidRequest(`a date range spans at most ${QUERY_LIMITS.maxRangeDays} days`, [
      { field: '/body/dateRange', message: 'range too long', code: 'range_too_long' },
    ]);
  }
  return [from, to];
}

/** Checks each filter's value against its operator; answers them typed for the store. */
export function checkedFilters(filters: Static<typeof Filters> | undefined, field: string): Filter[] {
  return (filters ?? []).map((filter, i) => {
    const at = `${field}/${i}/value`;
    const bad = (message: string) =>
      new InvalidRequest(`filter ${i}: ${message}`, [{ field: at, message, code: 'invalid_filter' }]);
    if (filter.op === 'in') {
      if (!Array.isArray(filter.value) || filter.value.length === 0)
        throw bad('`in` takes a non-empty array of values');
    } else if (Array.isArray(filter.value)) throw bad(`\`${filter.op}\` takes one value, not an array`);
    if ((filter.op === 'gt' || filter.op === 'lt') && typeof filter.value !== 'number') {
      throw bad(`\`${filter.op}\` compares numbers: give a number`);
    }
    if (
      (filter.op === 'gt' || filter.op === 'lt') &&
      (filter.property === 'roomId' || filter.property === 'actorId')
    ) {
      throw bad(`\`${filter.op}\` compares numeric properties, not ${filter.property}`);
    }
    if (filter.op === 'contains' && typeof filter.value !== 'string') throw bad('`contains` takes a string');
    return { property: filter.property, op: filter.op, value: filter.value };
  });
}

/** One event name or a list, as a list (none: every event). */
export function eventList(event: string | string[] | undefined): string[] | undefined {
  if (event === undefined) return undefined;
  return [...new Set(Array.isArray(event) ? event : [event])];
}

/** The series query a request asks for (range, buckets, filters), checked. */
export function seriesQuery(
  ctx: ServiceContext,
  input: Static<typeof QueryInput>,
): SeriesQuery & { zone: ZoneTime } {
  const name = checkedZone(input.timezone);
  const [from, to] = resolveRange(input.dateRange, name, ctx.clock.now());
  const zone = new ZoneTime(name);
  if (input.interval !== undefined) zone.span(from, to);
  const bounds =
    input.interval === undefined
      ? [from, to]
      : bucketBoundaries(zone, input.interval, from, to, QUERY_LIMITS.buckets);
  assertRepresentable(bounds, '/body/dateRange');
  return {
    zone,
    events: eventList(input.event),
    from,
    to,
    bounds,
    metrics: [...new Set(input.metrics)],
    filters: checkedFilters(input.filters, '/body/filters'),
    ...(input.breakdown === undefined
      ? {}
      : { breakdown: { by: input.breakdown, limit: input.breakdownLimit } }),
  };
}
