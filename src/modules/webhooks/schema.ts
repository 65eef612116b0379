import { type Static, Type } from 'typebox';
import { PAGE_QUERY, Page, type PageQuery } from '../../core/http/pagination.ts';
import { idPattern } from './ids.ts';

/**
 * The webhooks module's TypeBox schemas: the one source of its input and output shapes. Routes and actions
 * validate with them and verbs take their `Static` types; what no schema can say (the destination policy,
 * event type patterns) is checked in input-rules.ts.
 */
export const SECRET_MIN_LENGTH = 16;
export const SECRET_MAX_LENGTH = 512;
export const URL_MAX_LENGTH = 2048;
export const MAX_ROTATION_GRACE_SECONDS = 7 * 86_400;
export const MAX_ENDPOINTS_PER_TENANT = 100;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(s: T) => Type.Union([s, Type.Null()]);
export const Time = Type.String({ format: 'date-time' });
export const EndpointId = Type.String({ pattern: idPattern('webhookEndpoint') });
const DeliveryId = Type.String({ pattern: idPattern('webhookDelivery') });
/** What a delivery's request headers show for a value made at each attempt (never a signature). */
export const PER_ATTEMPT = '(set per attempt)';
const EventTypeFilter = Type.String({ maxLength: 100 });
const Description = Type.String({
  maxLength: 500,
  description: "What the endpoint is for ('' when not given)",
});

export const EventTypes = Nullable(
  Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
    maxItems: 100,
    description: 'Event types (room.created) or prefixes (room.*); null = every tenant event',
  }),
);

/** The stored endpoint as callers see it. The secret is never returned. */
export const Endpoint = Type.Object(
  {
    id: EndpointId,
    url: Type.String(),
    description: Description,
    eventTypes: EventTypes,
    enabled: Type.Boolean(),
    previousSecretExpiresAt: Nullable(Time),
    circuit: Type.Object(
      {
        consecutiveTimeouts: Type.Integer({ description: 'Attempts in a row that got no answer in time' }),
        openedAt: Nullable(Time),
        openUntil: Nullable({
          ...Time,
          description:
            'Set while the circuit is open or half-open: no attempt before this time, then one at a time until one is answered',
        }),
      },
      {
        description:
          'The circuit breaker: an endpoint that keeps timing out is paused, its deliveries wait (see docs/webhooks.md)',
      },
    ),
    createdAt: Time,
    updatedAt: Time,
  },
  {
    title: 'WebhookEndpoint',
    description:
      'A URL that receives signed tenant events, with its filter and its circuit breaker (never its secret)',
  },
);

export const DeliveryState = Type.Union([
  Type.Literal('pending'),
  Type.Literal('delivered'),
  Type.Literal('dead_lettered'),
]);
export const AttemptErrorClass = Type.Union([
  Type.Literal('timeout'),
  Type.Literal('connect'),
  Type.Literal('tls'),
  Type.Literal('http'),
  Type.Literal('interrupted'),
]);
const ErrorClass = Nullable(AttemptErrorClass);

export const Delivery = Type.Object(
  {
    id: DeliveryId,
    endpointId: Type.String(),
    eventId: Type.String(),
    eventType: Type.String(),
    state: DeliveryState,
    attemptCount: Type.Integer(),
    nextAttemptAt: Nullable(Time),
    lastAttemptAt: Nullable(Time),
    lastStatusCode: Nullable(Type.Integer()),
    lastErrorClass: ErrorClass,
    createdAt: Time,
    deliveredAt: Nullable(Time),
    deadLetteredAt: Nullable(Time),
  },
  { title: 'WebhookDelivery', description: 'One event sent to one endpoint: its state and its last attempt' },
);

export const Attempt = Type.Object(
  {
    attempt: Type.Integer(),
    cycle: Type.Integer(),
    startedAt: Time,
    durationMs: Nullable(Type.Integer()),
    statusCode: Nullable(Type.Integer()),
    errorClass: ErrorClass,
    errorMessage: Nullable(Type.String()),
    responseBodyExcerpt: Nullable(Type.String()),
  },
  { title: 'WebhookAttempt', description: 'One attempt to deliver: when, how long, and what came back' },
);

export const DeliveryDetail = Type.Intersect(
  [
    Delivery,
    Type.Object({
      body: Type.String({ description: 'The exact JSON body sent' }),
      request: Type.Object(
        {
          url: Type.String({ description: "The endpoint's current URL" }),
          headers: Type.Record(Type.String(), Type.String()),
        },
        {
          description: `The headers every attempt sends; those that differ per attempt (the timestamp, the signatures, the traceparent's span) read ${PER_ATTEMPT}`,
        },
      ),
      attempts: Type.Array(Attempt),
    }),
  ],
  {
    title: 'WebhookDeliveryDetail',
    description: 'A delivery with the exact request sent (body and headers) and every attempt',
  },
);

export const CreateEndpointBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: URL_MAX_LENGTH,
      description: 'http(s) receiver; https only in production',
    }),
    secret: Type.String({
      minLength: SECRET_MIN_LENGTH,
      maxLength: SECRET_MAX_LENGTH,
      description: 'HMAC key, >= 16 chars',
    }),
    description: Type.Optional(Description),
    eventTypes: Type.Optional(EventTypes),
    enabled: Type.Optional(Type.Boolean()),
  },
  {
    title: 'CreateWebhookInput',
    description:
      'A new webhook endpoint: its URL, signing secret, description, event filter and enabled flag',
    additionalProperties: false,
  },
);

/** Fields left out stay as they are; the secret changes only through rotation. */
export const UpdateEndpointBody = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: URL_MAX_LENGTH })),
    description: Type.Optional(Description),
    eventTypes: Type.Optional(EventTypes),
    enabled: Type.Optional(Type.Boolean()),
  },
  {
    title: 'UpdateWebhookInput',
    description:
      "The endpoint's fields to change (url, description, event types, enabled); those left out stay",
    additionalProperties: false,
    minProperties: 1,
  },
);

export const RotateSecretBody = Type.Object(
  {
    secret: Type.String({ minLength: SECRET_MIN_LENGTH, maxLength: SECRET_MAX_LENGTH }),
    graceSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_ROTATION_GRACE_SECONDS,
        description: 'How long the old secret also signs (default 86400)',
      }),
    ),
  },
  {
    title: 'RotateWebhookSecretInput',
    description: 'The new signing secret, and how long the old one keeps signing',
    additionalProperties: false,
  },
);

/** The time-range filters of a delivery list: when the delivery was created (its event happened). */
const DELIVERY_TIME_RANGE = {
  since: Type.Optional({ ...Time, description: 'Deliveries created at or after this time' }),
  until: Type.Optional({ ...Time, description: 'Deliveries created before this time' }),
};

export const DeliveryListQuery = Type.Object(
  {
    state: Type.Optional(DeliveryState),
    eventType: Type.Optional(EventTypeFilter),
    ...DELIVERY_TIME_RANGE,
    ...PAGE_QUERY,
  },
  { additionalProperties: false },
);

export const EndpointPage = Page(
  Endpoint,
  'WebhookEndpointPage',
  'A page of webhook endpoints, oldest first',
);
export const DeliveryPage = Page(
  Delivery,
  'WebhookDeliveryPage',
  'A page of webhook deliveries, newest first',
);

export const EndpointRef = Type.Object(
  { id: EndpointId },
  { title: 'WebhookEndpointRef', description: 'A webhook endpoint by its id', additionalProperties: false },
);
export const DeliveryRef = Type.Object(
  { id: DeliveryId },
  { title: 'WebhookDeliveryRef', description: 'A webhook delivery by its id', additionalProperties: false },
);
export const Deleted = Type.Object(
  { id: Type.String(), deleted: Type.Literal(true) },
  { title: 'DeletedWebhookEndpoint', description: 'The endpoint and its deliveries are deleted' },
);

/** One endpoint's deliveries, or (no endpointId) every delivery of the tenant. */
export const ListDeliveriesInput = Type.Object(
  {
    endpointId: Type.Optional(EndpointId),
    state: Type.Optional(DeliveryState),
    eventType: Type.Optional(EventTypeFilter),
    ...DELIVERY_TIME_RANGE,
    ...PAGE_QUERY,
  },
  {
    title: 'ListWebhookDeliveriesInput',
    description:
      "One endpoint's deliveries, or every delivery of the tenant, filtered by state, event type and creation time",
    additionalProperties: false,
  },
);

/** Path parameters of the routes: the endpoint or the delivery they address. */
export const WebhookParams = Type.Object({ webhookId: EndpointId });
export const DeliveryParams = Type.Object({ deliveryId: DeliveryId });

export const WebhooksConfig = Type.Object({}, { additionalProperties: false });

export type WebhookEndpoint = Static<typeof Endpoint>;
export type WebhookDelivery = Static<typeof Delivery>;
export type WebhookAttempt = Static<typeof Attempt>;
export type WebhookDeliveryDetail = Static<typeof DeliveryDetail>;
export type DeliveryState = Static<typeof DeliveryState>;
export type AttemptErrorClass = Static<typeof AttemptErrorClass>;
export type WebhookEndpointPage = Static<typeof EndpointPage>;
export type WebhookDeliveryPage = Static<typeof DeliveryPage>;
export type CreateEndpointInput = Static<typeof CreateEndpointBody>;
export type UpdateEndpointInput = Static<typeof EndpointRef> & Static<typeof UpdateEndpointBody>;
export type RotateSecretInput = Static<typeof EndpointRef> & Static<typeof RotateSecretBody>;
export type ListEndpointsInput = Static<typeof PageQuery>;
export type ListDeliveriesInput = Static<typeof ListDeliveriesInput>;
