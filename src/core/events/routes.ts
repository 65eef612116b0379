import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../context.ts';
import { requestContext } from '../http/context.ts';
import { PAGE_QUERY, Page } from '../http/pagination.ts';
import { jsonObject } from '../http/schemas.ts';
import { idPattern } from '../ids.ts';
import { eventToWire } from './store.ts';
import { getEvent, listEvents, publishEvent } from './verbs.ts';

/**
 * Who caused an event. Described rather than typed: the Actor schema forbids other fields, and its
 * `kind` tells the three apart.
 */
const TraceActor = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      "Who caused it, by public ids: `{kind: 'api_key', id: 'key_...'}`, `{kind: 'user', id: 'usr_...'}` (a console user), or `{kind: 'actor'}` with the Actor object's fields (`type`, `id: '<provider>:<external_id>'`, `identityProvider`)",
  },
);

export const EventSchema = Type.Object(
  {
    id: Type.String({ pattern: idPattern('event') }),
    type: Type.String(),
    data: Type.Object({}, { additionalProperties: true }),
    created_at: Type.String({ format: 'date-time' }),
    trace: Type.Object(
      {
        traceId: Type.String(),
        spanId: Type.String(),
        sampled: Type.Optional(
          Type.Boolean({ description: "The sampled flag of the request's traceparent, kept for deliveries" }),
        ),
        requestId: Type.String(),
        origin: Type.String({ description: 'api, console, realtime, mcp or system' }),
        actor: Type.Optional(TraceActor),
      },
      {
        title: 'EventTrace',
        description: 'Where an event came from: the trace and request that caused it, and who',
        additionalProperties: true,
      },
    ),
  },
  {
    title: 'Event',
    description:
      'A tenant event: written with the change it describes, delivered to webhooks and kept in the log',
  },
);

export const EventListQuery = Type.Object(
  {
    ...PAGE_QUERY,
    type: Type.Optional(
      Type.String({
        pattern: '^[a-z][a-z0-9_]*(\\.[a-z0-9_]+)*(\\.\\*)?$',
        description: 'Exact type (room.created) or a prefix ending in .* (room.*)',
      }),
    ),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'created_at >= since' })),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'created_at < until' })),
    actor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 300,
        description:
          "Only events caused by this actor: an API key's id (key_...), a console user's (usr_...) or a runtime actor's (<provider>:<external_id>), as `trace.actor.id` shows it",
      }),
    ),
    after: Type.Optional(
      Type.String({
        pattern: idPattern('event'),
        description:
          'Only events written after this one (by id): with order=asc, a tail polls with the last id it has seen',
      }),
    ),
    order: Type.Optional(Type.Union([Type.Literal('desc'), Type.Literal('asc')], { default: 'desc' })),
  },
  { additionalProperties: false },
);

export const EventPage = Page(EventSchema, 'EventPage', 'A page of tenant events, newest first unless asked');

const PublishBody = Type.Object(
  {
    type: Type.String({
      pattern: '^app\\.[a-z0-9_]+(\\.[a-z0-9_]+)*$',
      maxLength: 100,
      description: 'app.<name>',
    }),
    data: jsonObject(),
  },
  {
    title: 'PublishEventInput',
    description: 'A custom application event: its `app.*` type and its data (up to 64 KiB of JSON)',
    additionalProperties: false,
  },
);

export async function eventRoutes(app: FastifyInstance, services: Services) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.get(
    '/v1/events',
    {
      config: { auth: { credentials: ['api_key'], scope: 'events:read' } },
      schema: {
        operationId: 'listEvents',
        summary: 'Tenant events, newest first, with type and time filters and cursor pages',
        tags: ['events'],
        querystring: EventListQuery,
        response: { 200: EventPage },
      },
    },
    async (request) => {
      const page = await listEvents(requestContext(request, services), request.query);
      return { data: page.data.map(eventToWire), nextCursor: page.nextCursor };
    },
  );

  typed.get(
    '/v1/events/:eventId',
    {
      config: { auth: { credentials: ['api_key'], scope: 'events:read' } },
      schema: {
        operationId: 'getEvent',
        summary: 'One tenant event',
        tags: ['events'],
        params: Type.Object({ eventId: Type.String({ pattern: idPattern('event') }) }),
        response: { 200: EventSchema },
      },
    },
    async (request) => eventToWire(await getEvent(requestContext(request, services), request.params.eventId)),
  );

  typed.post(
    '/v1/events',
    {
      config: { auth: { credentials: ['api_key'], scope: 'events:write' } },
      schema: {
        operationId: 'publishEvent',
        summary: 'Publish a custom app.* event (data up to 64 KiB)',
        tags: ['events'],
        body: PublishBody,
        response: { 201: EventSchema },
      },
    },
    async (request, reply) => {
      const event = await publishEvent(requestContext(request, services), request.body);
      reply.status(201);
      return eventToWire(event);
    },
  );
}
