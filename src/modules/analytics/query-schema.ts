import { Type } from 'typebox';
import { oneOf } from '../../core/http/schemas.ts';
import { EventName } from './schema.ts';

/** Limits of queries. */
export const QUERY_LIMITS = {
  events: 20,
  filters: 20,
  inValues: 100,
  buckets: 5000,
  breakdownLimit: 100,
  funnelSteps: 10,
  maxRangeDays: 1100,
} as const;

export const METRIC_PATTERN = '^(events|uniques|(sum|avg):[A-Za-z0-9_.$-]{1,200})$';
const Metric = Type.String({
  pattern: METRIC_PATTERN,
  description: '`events` (count), `uniques` (distinct actors), `sum:<property>`, `avg:<property>`',
});

export const PRESETS = [
  'today',
  'yesterday',
  'last_24h',
  'last_7d',
  'last_30d',
  'last_90d',
  'month_to_date',
  'last_12m',
] as const;

export const DateRange = Type.Object(
  {
    preset: Type.Optional(oneOf(PRESETS, { description: 'Local-day presets in the query’s time zone' })),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive start' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Exclusive end (default: now)' })),
  },
  {
    title: 'AnalyticsDateRange',
    description: 'A preset, or from (and optionally to)',
    additionalProperties: false,
  },
);

const FilterValue = Type.Union([Type.String({ maxLength: 4096 }), Type.Number(), Type.Boolean()]);
export const FILTER_OPS = ['eq', 'neq', 'in', 'contains', 'gt', 'lt'] as const;
export const Filter = Type.Object(
  {
    property: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'A property name, or `roomId`, `actorId`',
    }),
    op: oneOf(FILTER_OPS, {
      description:
        'eq/neq: equal or not (neq also matches a missing property); in: one of value; contains: substring, case-insensitive; gt/lt: numeric',
    }),
    value: Type.Union([FilterValue, Type.Array(FilterValue, { maxItems: QUERY_LIMITS.inValues })]),
  },
  {
    title: 'AnalyticsFilter',
    description: 'A condition on a property (or roomId, actorId) that events must meet',
    additionalProperties: false,
  },
);
export const Filters = Type.Array(Filter, { maxItems: QUERY_LIMITS.filters, description: 'ANDed' });

export const INTERVALS = ['hour', 'day', 'week', 'month'] as const;

const EventSelector = Type.Union([
  EventName,
  Type.Array(EventName, { minItems: 1, maxItems: QUERY_LIMITS.events }),
]);

export const QueryInput = Type.Object(
  {
    metrics: Type.Array(Metric, { minItems: 1, maxItems: 10, default: ['events'] }),
    event: Type.Optional(EventSelector),
    dateRange: DateRange,
    interval: Type.Optional(
      oneOf(INTERVALS, { description: 'Buckets aligned to local time; none: one total' }),
    ),
    timezone: Type.String({
      minLength: 1,
      maxLength: 64,
      default: 'UTC',
      description: 'IANA time zone name',
    }),
    breakdown: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'A property name or `roomId`' }),
    ),
    breakdownLimit: Type.Integer({ minimum: 1, maximum: QUERY_LIMITS.breakdownLimit, default: 10 }),
    filters: Type.Optional(Filters),
  },
  {
    title: 'AnalyticsQueryInput',
    description: 'Which events to count or sum, over which range, per which bucket and property value',
    additionalProperties: false,
  },
);

const MetricValues = Type.Record(Type.String(), Type.Union([Type.Number(), Type.Null()]), {
  description: 'One value per requested metric (avg is null without values)',
});

export const Bucket = Type.Object(
  {
    start: Type.String({ description: 'Bucket start, UTC' }),
    end: Type.String({ description: 'Bucket end (exclusive), UTC' }),
    startLocal: Type.String({ description: 'Bucket start in the query’s time zone, with its offset' }),
    values: MetricValues,
  },
  {
    title: 'AnalyticsBucket',
    description: 'One local-time bucket of a query: its bounds and its values',
    additionalProperties: false,
  },
);

export const BreakdownRow = Type.Object(
  {
    value: Type.Union([Type.String(), Type.Null()], { description: 'The property value (null: missing)' }),
    other: Type.Boolean({ description: 'True for the row that adds up every value past the top N' }),
    values: MetricValues,
    buckets: Type.Optional(Type.Array(Bucket)),
  },
  {
    title: 'AnalyticsBreakdownRow',
    description: 'The values of one property value (or of all others past the top N)',
    additionalProperties: false,
  },
);

export const QueryResult = Type.Object(
  {
    timezone: Type.String(),
    interval: Type.Union([oneOf(INTERVALS), Type.Null()]),
    dateRange: Type.Object({ from: Type.String(), to: Type.String() }, { additionalProperties: false }),
    metrics: Type.Array(Type.String()),
    totals: MetricValues,
    buckets: Type.Optional(Type.Array(Bucket)),
    breakdown: Type.Optional(Type.Array(BreakdownRow)),
    source: oneOf(['rollup', 'raw'] as const, {
      description: 'Whether hourly rollups or raw events answered',
    }),
  },
  {
    title: 'AnalyticsQueryResult',
    description: 'The totals of a query, per bucket and per breakdown value when asked',
    additionalProperties: false,
  },
);

export const FunnelStep = Type.Object(
  { event: EventName, filters: Type.Optional(Filters) },
  {
    title: 'AnalyticsFunnelStep',
    description: 'One step of a funnel: an event, optionally with filters',
    additionalProperties: false,
  },
);

export const FunnelInput = Type.Object(
  {
    steps: Type.Array(FunnelStep, { minItems: 2, maxItems: QUERY_LIMITS.funnelSteps }),
    dateRange: DateRange,
    timezone: Type.String({
      minLength: 1,
      maxLength: 64,
      default: 'UTC',
      description: 'IANA name (for presets)',
    }),
    windowSeconds: Type.Integer({
      minimum: 1,
      maximum: 90 * 86_400,
      default: 86_400,
      description: 'Every later step must happen within this long after the first',
    }),
  },
  {
    title: 'AnalyticsFunnelInput',
    description: 'Ordered steps, a date range and a conversion window',
    additionalProperties: false,
  },
);

export const FunnelResult = Type.Object(
  {
    timezone: Type.String(),
    dateRange: Type.Object({ from: Type.String(), to: Type.String() }, { additionalProperties: false }),
    windowSeconds: Type.Integer(),
    steps: Type.Array(
      Type.Object(
        {
          event: Type.String(),
          actors: Type.Integer({ description: 'Unique actors who reached this step in order' }),
          conversionFromFirst: Type.Union([Type.Number(), Type.Null()]),
          conversionFromPrevious: Type.Union([Type.Number(), Type.Null()]),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    title: 'AnalyticsFunnelResult',
    description: 'How many unique actors reached each step of a funnel, with conversion rates',
    additionalProperties: false,
  },
);
