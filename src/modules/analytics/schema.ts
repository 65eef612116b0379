import { Type } from 'typebox';
import { jsonObject } from '../../core/http/schemas.ts';
import { Actor } from '../../core/tenancy/actors.ts';

/** Why the old `actorId` field is refused: the actor is named by the Actor object now. */
export const ACTOR_ID_REPLACED =
  'actorId is not a field: send `actor`, the Actor object {type, id: "<provider>:<external_id>", identityProvider}';

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

export const EventName = Type.String({
  minLength: 1,
  maxLength: LIMITS.eventNameChars,
  description: 'What happened, e.g. `Show Watched`. Names starting with `$` are the platform’s own.',
});
const ExternalId = Type.String({ minLength: 1, maxLength: LIMITS.idChars });
const Time = Type.String({ format: 'date-time', description: 'ISO 8601 date-time' });

export const AnalyticsEventInput = Type.Object(
  {
    event: EventName,
    // The actor it happened to; a session token may name only its own.
    actor: Type.Optional(Actor),
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
  {
    title: 'AnalyticsEventInput',
    description:
      'One event; give `actor` (the Actor it happened to; a session token may name only its own) or anonymousId (or both)',
    additionalProperties: false,
  },
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
    actor: Type.Optional(Actor),
    anonymousId: Type.Optional(ExternalId),
    roomId: Type.Optional(ExternalId),
    properties: Type.Optional(jsonObject()),
    timestamp: Type.Optional(Time),
    messageId: Type.Optional(ExternalId),
    context: Type.Optional(jsonObject()),
  },
  {
    title: 'IngestAnalyticsEventsInput',
    description: 'One event (its fields at the top level), or `{batch: [event, ...]}`',
    additionalProperties: false,
  },
);

export const Rejection = Type.Object(
  {
    index: Type.Integer({ description: 'Position in the batch (0 for a single event)' }),
    messageId: Type.Optional(Type.String()),
    reason: Type.String({ description: 'Stable code, e.g. invalid_event, event_too_large, actor_mismatch' }),
    message: Type.String({ description: 'What to change' }),
  },
  {
    title: 'AnalyticsRejection',
    description: 'An event of a batch that was not recorded, and why',
    additionalProperties: false,
  },
);

export const IngestResult = Type.Object(
  {
    accepted: Type.Integer({ description: 'Events recorded' }),
    duplicates: Type.Integer({ description: 'Events whose messageId was seen before (not recorded again)' }),
    rejected: Type.Integer({ description: 'Events refused; see rejections' }),
    rejections: Type.Array(Rejection),
    receivedAt: Type.String({ description: 'Server time the events were received' }),
  },
  {
    title: 'AnalyticsIngestResult',
    description: 'What became of the events sent: recorded, duplicates, or rejected with reasons',
    additionalProperties: false,
  },
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
    timezone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: '^[A-Za-z0-9_+\\-/]+$',
        description:
          'The tenant’s time zone, an IANA name such as Europe/Berlin: the console’s analytics charts start in it (unset: the viewer’s own). Queries still name theirs',
      }),
    ),
  },
  {
    title: 'AnalyticsConfig',
    description: 'A tenant’s analytics settings: platform-event capture, retention and time zone',
    additionalProperties: false,
  },
);
