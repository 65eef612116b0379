import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { seriesQuery } from '../query-input.ts';
import type { QueryInput, QueryResult } from '../query-schema.ts';
import { analyticsStore } from '../settings.ts';
import type { MetricValues } from '../store.ts';
import { localIso } from '../time/local-time.ts';

type Result = Static<typeof QueryResult>;
type Bucket = NonNullable<Result['buckets']>[number];

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
