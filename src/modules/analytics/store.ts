import type { ServiceContext } from '../../core/context.ts';
import type { Database } from '../../core/db/database.ts';

/**
 * The one interface every analytics read and write goes through. `postgresStore` implements it on the
 * service's database (monthly partitions, hourly rollups); a columnar store (ClickHouse) would implement
 * the same five calls, and nothing above this file would change. See docs/analytics.md.
 */
export interface AnalyticsStore {
  /**
   * Records events of one tenant. Rows with `dedupe` set are recorded only if their messageId is new for
   * the tenant (atomically, also against concurrent writers); answers the positions of those that were not.
   */
  insert(ctx: ServiceContext, rows: readonly StoredEvent[]): Promise<{ duplicates: ReadonlySet<number> }>;
  /** Metrics per bucket (and per breakdown value), with totals. */
  series(
    ctx: ServiceContext,
    query: SeriesQuery,
    options?: { source?: 'auto' | 'raw' },
  ): Promise<SeriesAnswer>;
  /** Unique actors reaching each step in order within the window, first step in [from, to). */
  funnel(ctx: ServiceContext, query: FunnelQuery): Promise<number[]>;
  /** Deletes one tenant's events (and their rollups) before `before`. */
  deleteBefore(ctx: ServiceContext, before: number): Promise<number>;
  /** Drops whole partitions that end at or before `before` (every tenant's rows in them). */
  dropPartitionsBefore(db: Database, before: number): Promise<string[]>;
}

export interface StoredEvent {
  event: string;
  /** Event time (client timestamp, clamped), ms. */
  ts: number;
  receivedAt: number;
  messageId: string;
  /** Whether messageId came from the client (or the platform event): then it dedupes. */
  dedupe: boolean;
  actorId: string | null;
  anonymousId: string | null;
  roomId: string | null;
  properties: Record<string, unknown>;
  context: Record<string, unknown> | null;
  clamped: boolean;
}

export type FilterOp = 'eq' | 'neq' | 'in' | 'contains' | 'gt' | 'lt';
export type FilterValue = string | number | boolean;

export interface Filter {
  property: string;
  op: FilterOp;
  value: FilterValue | FilterValue[];
}

/** `events`, `uniques`, `sum:<property>`, `avg:<property>`. */
export type Metric = string;

export interface SeriesQuery {
  /** Event names (none: every event). */
  events: readonly string[] | undefined;
  from: number;
  to: number;
  /** Bucket boundaries: bucket i is [bounds[i], bounds[i+1]); first <= from, last >= to. */
  bounds: readonly number[];
  metrics: readonly Metric[];
  filters: readonly Filter[];
  breakdown?: { by: string; limit: number };
}

export type MetricValues = Record<string, number | null>;

export interface SeriesAnswer {
  source: 'rollup' | 'raw';
  totals: MetricValues;
  /** One per bucket, in order. */
  buckets: MetricValues[];
  breakdown?: { value: string | null; other: boolean; totals: MetricValues; buckets: MetricValues[] }[];
}

export interface FunnelQuery {
  steps: readonly { event: string; filters: readonly Filter[] }[];
  from: number;
  to: number;
  windowMs: number;
}
