import { Type } from 'typebox';
import { idPattern } from '../../core/ids.ts';
import { SECRET_MAX_LENGTH, SECRET_MIN_LENGTH, URL_MAX_LENGTH } from './validate.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(s: T) => Type.Union([s, Type.Null()]);
const Time = Type.String({ format: 'date-time' });

export const EventTypes = Nullable(
  Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
    maxItems: 100,
    description: 'Event types (room.created) or prefixes (room.*); null = every tenant event',
  }),
);

export const Endpoint = Type.Object({
  id: Type.String({ pattern: idPattern('webhookEndpoint') }),
  url: Type.String(),
  eventTypes: EventTypes,
  enabled: Type.Boolean(),
  previousSecretExpiresAt: Nullable(Time),
  createdAt: Time,
  updatedAt: Time,
});

const State = Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('dead_lettered')]);
const ErrorClass = Nullable(
  Type.Union(['timeout', 'connect', 'tls', 'http', 'interrupted'].map((c) => Type.Literal(c))),
);

export const Delivery = Type.Object({
  id: Type.String({ pattern: idPattern('webhookDelivery') }),
  endpointId: Type.String(),
  eventId: Type.String(),
  eventType: Type.String(),
  state: State,
  attemptCount: Type.Integer(),
  nextAttemptAt: Nullable(Time),
  lastAttemptAt: Nullable(Time),
  lastStatusCode: Nullable(Type.Integer()),
  lastErrorClass: ErrorClass,
  createdAt: Time,
  deliveredAt: Nullable(Time),
  deadLetteredAt: Nullable(Time),
});

export const DeliveryDetail = Type.Intersect([
  Delivery,
  Type.Object({
    body: Type.String({ description: 'The exact JSON body sent' }),
    attempts: Type.Array(
      Type.Object({
        attempt: Type.Integer(),
        cycle: Type.Integer(),
        startedAt: Time,
        durationMs: Nullable(Type.Integer()),
        statusCode: Nullable(Type.Integer()),
        errorClass: ErrorClass,
        errorMessage: Nullable(Type.String()),
        responseBodyExcerpt: Nullable(Type.String()),
      }),
    ),
  }),
]);

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
    eventTypes: Type.Optional(EventTypes),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const UpdateEndpointBody = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: URL_MAX_LENGTH })),
    eventTypes: Type.Optional(EventTypes),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const RotateSecretBody = Type.Object(
  {
    secret: Type.String({ minLength: SECRET_MIN_LENGTH, maxLength: SECRET_MAX_LENGTH }),
    graceSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 7 * 86_400,
        description: 'How long the old secret also signs (default 86400)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    cursor: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

export const DeliveryListQuery = Type.Object(
  {
    state: Type.Optional(State),
    eventType: Type.Optional(Type.String({ maxLength: 100 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    cursor: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

export const pageOf = <T extends Parameters<typeof Type.Array>[0]>(item: T) =>
  Type.Object({ data: Type.Array(item), nextCursor: Nullable(Type.String()) });

export const EndpointRef = Type.Object(
  { id: Type.String({ pattern: idPattern('webhookEndpoint') }) },
  { additionalProperties: false },
);
export const DeliveryRef = Type.Object(
  { id: Type.String({ pattern: idPattern('webhookDelivery') }) },
  { additionalProperties: false },
);
export const ListDeliveriesInput = Type.Object(
  {
    endpointId: Type.Optional(Type.String({ pattern: idPattern('webhookEndpoint') })),
    state: Type.Optional(State),
    eventType: Type.Optional(Type.String({ maxLength: 100 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    cursor: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);
