import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { assertRepresentable } from '../date-bounds.ts';
import { QUERY_LIMITS, type QueryInput, type QueryResult } from '../schema.ts';
import type { MetricValues, SeriesQuery } from '../store.ts';
import { bucketBoundaries, checkedZone, localIso, ZoneTime } from '../time-zones.ts';
import { analyticsStore } from './config.ts';
import { checkedFilters, eventList, resolveRange } from './query-input.ts';

type Result = Static<typeof QueryResult>;
type Bucket = NonNullable<Result['buckets']>[number];

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

/**
 * Counts, uniques, sums and averages of events over a date range, optionally per local-time bucket (zero
 * filled) and per value of one property (top N, then `other`).
 */
export async function queryAnalytics(ctx: ServiceContext, input: Static<typeof QueryInput>): Promise<Result> {
  const query = seriesQuery(ctx, input);
  const answer = await analyticsStore.series(ctx, query);
  const buckets = (values: MetricValues[]): Bucket[] =>
    values.map((v, i) => {
      const start = query.bounds[i] ?? query.from;
      const end = query.bounds[i + 1] ?? query.to;
      return {
        start: new Date(start).toISOString(),
        end: new Date(end).toISOString(),
        startLocal: localIso(query.zone, start),
        values: v,
      };
    });
  const withBuckets = input.interval !== undefined;
  return {
    timezone: query.zone.zone,
    interval: input.interval ?? null,
    dateRange: { from: new Date(query.from).toISOString(), to: new Date(query.to).toISOString() },
    metrics: [...query.metrics],
    totals: answer.totals,
    ...(withBuckets ? { buckets: buckets(answer.buckets) } : {}),
    ...(answer.breakdown === undefined
      ? {}
      : {
          breakdown: answer.breakdown.map((row) => ({
            value: row.value,
            other: row.other,
            values: row.totals,
            ...(withBuckets ? { buckets: buckets(row.buckets) } : {}),
          })),
        }),
    source: answer.source,
  };
}
