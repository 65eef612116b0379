import { Type } from 'typebox';
import { jsonObject, oneOf } from '../../core/http/schemas.ts';

/** Limits of ingestion: a request, a batch, an event, its properties. */
export const LIMITS = {
  batchEvents: 500,
  requestBytes: 512 * 1024,
  eventBytes: 32 * 1024,
  properties: 100,
  propertyKeyChars: 200,
  propertyStringChars: 4096,
  propertyDepth: 5,
  eventNameChars: 200,
  idChars: 256,
  /** A client timestamp further ahead of the server's clock than this is replaced by `receivedAt`. */
  futureSkewMs: 3_600_000,
} as const;

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

const EventName = Type.String({
  minLength: 1,
  maxLength: LIMITS.eventNameChars,
  description: 'What happened, e.g. `Show Watched`. Names starting with `$` are the platform’s own.',
});
const ExternalId = Type.String({ minLength: 1, maxLength: LIMITS.idChars });
const Time = Type.String({ format: 'date-time', description: 'ISO 8601 date-time' });

export const AnalyticsEventInput = Type.Object(
  {
    event: EventName,
    actorId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: LIMITS.idChars,
        description:
          'The actor it happened to, `<provider>:<external_id>`; a session token may name only its own',
      }),
    ),
    anonymousId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: LIMITS.idChars,
        description: 'A browser or device id before sign-in',
      }),
    ),
    roomId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: LIMITS.idChars,
        description: 'The room it happened in, if any',
      }),
    ),
    properties: Type.Optional(
      jsonObject({
        description: `At most ${LIMITS.properties} keys of at most ${LIMITS.propertyKeyChars} characters; strings at most ${LIMITS.propertyStringChars}; nesting at most ${LIMITS.propertyDepth} deep`,
      }),
    ),
    timestamp: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'When it happened by the client’s clock; more than an hour ahead of the server is replaced',
      }),
    ),
    messageId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: LIMITS.idChars,
        description:
          'Dedupe key: a second event with the same messageId in the tenant (within 7+ days) is a duplicate',
      }),
    ),
    context: Type.Optional(jsonObject({ description: 'Free-form context (library, page, user agent)' })),
  },
  { additionalProperties: false, description: 'One event; give actorId or anonymousId (or both)' },
);

export const IngestBody = Type.Object(
  {
    batch: Type.Optional(
      Type.Array(Type.Unknown(), {
        minItems: 1,
        description: `Up to ${LIMITS.batchEvents} events (each an event object), at most 512 KiB in all`,
      }),
    ),
    event: Type.Optional(EventName),
    actorId: Type.Optional(ExternalId),
    anonymousId: Type.Optional(ExternalId),
    roomId: Type.Optional(ExternalId),
    properties: Type.Optional(jsonObject()),
    timestamp: Type.Optional(Time),
    messageId: Type.Optional(ExternalId),
    context: Type.Optional(jsonObject()),
  },
  {
    additionalProperties: false,
    description: 'One event (its fields at the top level), or `{batch: [event, ...]}`',
  },
);

export const Rejection = Type.Object(
  {
    index: Type.Integer({ description: 'Position in the batch (0 for a single event)' }),
    messageId: Type.Optional(Type.String()),
    reason: Type.String({ description: 'Stable code, e.g. invalid_event, event_too_large, actor_mismatch' }),
    message: Type.String({ description: 'What to change' }),
  },
  { additionalProperties: false },
);

export const IngestResult = Type.Object(
  {
    accepted: Type.Integer({ description: 'Events recorded' }),
    duplicates: Type.Integer({ description: 'Events whose messageId was seen before (not recorded again)' }),
    rejected: Type.Integer({ description: 'Events refused; see rejections' }),
    rejections: Type.Array(Rejection),
    receivedAt: Type.String({ description: 'Server time the events were received' }),
  },
  { additionalProperties: false },
);

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
  { additionalProperties: false, description: 'A preset, or from (and optionally to)' },
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
  { additionalProperties: false },
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
  { additionalProperties: false },
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
  { additionalProperties: false },
);

export const BreakdownRow = Type.Object(
  {
    value: Type.Union([Type.String(), Type.Null()], { description: 'The property value (null: missing)' }),
    other: Type.Boolean({ description: 'True for the row that adds up every value past the top N' }),
    values: MetricValues,
    buckets: Type.Optional(Type.Array(Bucket)),
  },
  { additionalProperties: false },
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
  { additionalProperties: false },
);

export const FunnelStep = Type.Object(
  { event: EventName, filters: Type.Optional(Filters) },
  { additionalProperties: false },
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
  { additionalProperties: false },
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
  { additionalProperties: false },
);

export const AnalyticsConfig = Type.Object(
  {
    capturePlatformEvents: Type.Boolean({
      default: false,
      description:
        'Record the tenant’s own events (bids, chat messages, auction ends...) as `$<type>` events',
    }),
    retentionDays: Type.Integer({
      minimum: 1,
      maximum: 1095,
      default: 400,
      description: 'Raw events (and their rollups) older than this are deleted',
    }),
  },
  { additionalProperties: false },
);
