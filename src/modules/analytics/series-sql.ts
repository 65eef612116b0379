import type { ServiceContext } from '../../core/context.ts';
import { tenantRead } from '../../core/db/tenant-tx.ts';
import { compileFilters, metricSql, propertyText, SqlParams } from './sql.ts';
import type { MetricValues, SeriesAnswer, SeriesQuery } from './store.ts';

/**
 * The SQL of a series query (counts, uniques, sums, averages per bucket and breakdown value), from raw
 * events or hourly rollups, and its rows shaped into the answer: see `AnalyticsStore.series`.
 */

const HOUR = 3_600_000;
const iso = (t: number) => new Date(t).toISOString();

/**
 * Hourly rollups answer a query that counts events (no uniques, sums, filters or breakdown) whose buckets
 * start on whole UTC hours (any zone with whole-hour offsets; a zone like Asia/Kolkata reads raw rows for
 * hour buckets) and that spans at least one whole hour; the part-hours at its ends are read raw.
 */
export function rollupAnswers(query: SeriesQuery): boolean {
  return (
    query.metrics.every((m) => m === 'events') &&
    query.filters.length === 0 &&
    query.breakdown === undefined &&
    Math.ceil(query.from / HOUR) <= Math.floor(query.to / HOUR) &&
    // Each whole hour must fall in one bucket: the inner boundaries are on whole hours.
    query.bounds.slice(1, -1).every((b) => b % HOUR === 0)
  );
}

interface Row {
  b: number | null;
  total: boolean;
  k?: string | null;
  other?: boolean;
  [metric: string]: unknown;
}

function splitMetric(metric: string): [string, string] {
  const at = metric.indexOf(':');
  return at < 0 ? [metric, ''] : [metric.slice(0, at), metric.slice(at + 1)];
}

/**
 * The rows the aggregates read, one per event (raw) or per rollup row: bucket `b`, breakdown key `k`,
 * weight `w` (1, or the rollup's count), `actor_key` (raw) and `v<i>`, the numeric value of metric i.
 */
function baseRelation(
  query: SeriesQuery & { tenantId: string },
  p: SqlParams,
  rollup: boolean,
  key: string | undefined,
): string {
  const tenant = p.add(query.tenantId);
  const bounds = p.add(query.bounds.map(iso));
  const events = query.events === undefined ? '' : `and event = any(${p.add([...query.events])}::text[])`;
  const from = p.add(iso(query.from));
  const to = p.add(iso(query.to));
  if (rollup) {
    // Whole hours from the rollups; the part-hours at either end (a range that ends now) from the events.
    const fromHour = p.add(iso(Math.ceil(query.from / HOUR) * HOUR));
    const toHour = p.add(iso(Math.floor(query.to / HOUR) * HOUR));
    const edge = (lo: string, hi: string) =>
      `select width_bucket(ts, ${bounds}::timestamptz[]) as b, ${key ?? 'null::text'} as k, 1 as w
         from analytics_events
        where tenant_id = ${tenant} and ts >= ${lo}::timestamptz and ts < ${hi}::timestamptz ${events}`;
    return `select width_bucket(hour, ${bounds}::timestamptz[]) as b, ${key ?? 'null::text'} as k, events as w
              from analytics_hourly
             where tenant_id = ${tenant} and hour >= ${fromHour}::timestamptz and hour < ${toHour}::timestamptz ${events}
            union all ${edge(from, fromHour)}
            union all ${edge(toHour, to)}`;
  }
  const values = query.metrics.flatMap((m, i) => {
    const [kind, property] = splitMetric(m);
    return kind === 'sum' || kind === 'avg' ? [`, ${metricSql.number(property, p)} as v${i}`] : [];
  });
  return `select width_bucket(ts, ${bounds}::timestamptz[]) as b, ${key ?? 'null::text'} as k, 1 as w, actor_key
                 ${values.join('')}
            from analytics_events
           where tenant_id = ${tenant} and ts >= ${from}::timestamptz and ts < ${to}::timestamptz ${events}
             and ${compileFilters(query.filters, p)}`;
}

function aggregates(metrics: readonly string[]): string {
  return metrics
    .map((m, i) => {
      const [kind] = splitMetric(m);
      switch (kind) {
        case 'events':
          return `sum(w)::float8 as a${i}`;
        case 'uniques':
          return `count(distinct actor_key)::float8 as a${i}`;
        case 'sum':
          return `coalesce(sum(v${i}), 0)::float8 as a${i}`;
        default:
          return `avg(v${i})::float8 as a${i}`;
      }
    })
    .join(', ');
}

/** Per bucket and in total (`grouping sets`); with `top`, per breakdown value, the rest as `other`. */
export async function groupedRows(
  ctx: ServiceContext,
  query: SeriesQuery & { tenantId: string },
  rollup: boolean,
  top?: readonly (string | null)[],
): Promise<Row[]> {
  const p = new SqlParams();
  // One bucket (no interval): its values are the totals, so one grouping does (no grouping sets).
  const single = query.bounds.length === 2;
  const sets = (keys: string) =>
    single
      ? keys === ''
        ? ''
        : `group by ${keys}`
      : `group by grouping sets ((b${keys === '' ? '' : `, ${keys}`}), (${keys}))`;
  const total = single ? 'true' : 'grouping(b) = 1';
  const bucket = single ? '1' : 'b';
  let sql: string;
  if (top === undefined) {
    const base = baseRelation(query, p, rollup, undefined);
    sql = `select ${bucket} as b, ${total} as total, ${aggregates(query.metrics)} from (${base}) x ${sets('')}`;
  } else {
    const base = baseRelation(query, p, rollup, breakdownKey(query, p));
    const named = top.filter((v): v is string => v !== null);
    const inTop = `(k = any(${p.add(named)}::text[]) or (k is null and ${p.add(top.includes(null))}::boolean)) is true`;
    sql = `select ${bucket} as b, ${total} as total, key as k, other, ${aggregates(query.metrics)}
             from (select r.*, case when ${inTop} then k end as key, not (${inTop}) as other
                     from (${base}) r) x
            ${sets('key, other')}`;
  }
  const { rows } = await tenantRead<Row>(ctx.db, { tenantId: ctx.tenantId }, sql, p.values);
  // The single bucket's row stands for the totals too.
  return single ? rows.flatMap((row) => [row, { ...row, total: false }]) : rows;
}

function breakdownKey(query: SeriesQuery, p: SqlParams): string {
  return propertyText(query.breakdown?.by ?? 'roomId', p);
}

function valuesOf(metrics: readonly string[], row: Row | undefined): MetricValues {
  const out: MetricValues = {};
  metrics.forEach((m, i) => {
    const v = row?.[`a${i}`];
    const [kind] = splitMetric(m);
    out[m] = v === null || v === undefined ? (kind === 'avg' ? null : 0) : Number(v);
  });
  return out;
}

/** Zero-filled buckets and the totals from the grouping-set rows of one key. */
export function shape(
  query: SeriesQuery,
  rows: readonly Row[],
): { totals: MetricValues; buckets: MetricValues[] } {
  const byBucket = new Map<number, Row>();
  let total: Row | undefined;
  for (const row of rows) {
    if (row.total) total = row;
    else if (row.b !== null) byBucket.set(Number(row.b), row);
  }
  const buckets: MetricValues[] = [];
  for (let i = 1; i < query.bounds.length; i++) buckets.push(valuesOf(query.metrics, byBucket.get(i)));
  return { totals: valuesOf(query.metrics, total), buckets };
}

/** The top `limit` values by the first metric, then every other value as one `other` row. */
export async function breakdownSeries(
  ctx: ServiceContext,
  query: SeriesQuery & { tenantId: string },
  rollup: boolean,
): Promise<SeriesAnswer> {
  const limit = query.breakdown?.limit ?? 10;
  // Phase 1: rank the values over the whole range by the first metric.
  const p = new SqlParams();
  const ranking = [query.metrics[0] ?? 'events'];
  const base = baseRelation({ ...query, metrics: ranking }, p, rollup, breakdownKey(query, p));
  const ranked = await tenantRead<{ k: string | null; a0: number }>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select k, ${aggregates(ranking)} from (${base}) r group by k
      order by a0 desc nulls last, k asc nulls first limit ${p.add(limit)}::int`,
    p.values,
  );
  const top = ranked.rows.map((r) => r.k);
  // Phase 2: every metric per value (and bucket); whatever is not in the top is `other`.
  const rows = await groupedRows(ctx, query, rollup, top);
  const rowsOf = new Map<string, Row[]>();
  for (const row of rows) {
    const id = row.other === true ? 'other' : `v:${row.k ?? '\u0000'}`;
    const list = rowsOf.get(id) ?? [];
    list.push(row);
    rowsOf.set(id, list);
  }
  const breakdown: NonNullable<SeriesAnswer['breakdown']> = top.map((value) => ({
    value,
    other: false,
    ...shape(query, rowsOf.get(`v:${value ?? '\u0000'}`) ?? []),
  }));
  const other = rowsOf.get('other');
  if (other !== undefined) breakdown.push({ value: null, other: true, ...shape(query, other) });
  const totals = await groupedRows(ctx, { ...query, breakdown: undefined }, rollup);
  return { source: rollup ? 'rollup' : 'raw', ...shape(query, totals), breakdown };
}
