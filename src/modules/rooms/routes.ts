import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../core/context.ts';
import { requestContext } from '../../core/http/context.ts';
import { InvalidRequest } from '../../core/http/errors.ts';
import { errorRef } from '../../core/http/schemas.ts';
import { CreateRoomInput, Deleted, MetadataPatch, Room, RoomId, RoomPage } from './schema.ts';
import { createRoom } from './verbs/create-room.ts';
import { deleteRoom } from './verbs/delete-room.ts';
import { getRoom } from './verbs/get-room.ts';
import { listRooms } from './verbs/list-rooms.ts';
import { updateRoom } from './verbs/update-room.ts';

const read = { module: 'rooms', auth: { credentials: ['api_key', 'session'] as const, scope: 'rooms:read' } };
const write = { module: 'rooms', auth: { credentials: ['api_key'] as const, scope: 'rooms:write' } };
const Params = Type.Object({ roomId: RoomId });
const META = /^metadata\.([A-Za-z0-9_.:-]{1,40})$/;

const ListQuery = Type.Object(
  {
    cursor: Type.Optional(Type.String({ maxLength: 500 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  },
  {
    patternProperties: { '^metadata\\.[A-Za-z0-9_.:-]{1,40}$': Type.String({ maxLength: 256 }) },
    additionalProperties: false,
    description: 'Filter with metadata.<key>=<value> (ANDed)',
  },
);

const PatchBody = Type.Object(
  {
    name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()])),
    metadata: Type.Optional(MetadataPatch),
  },
  { additionalProperties: false },
);

export async function roomRoutes(app: FastifyInstance, services: Services) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.post(
    '/v1/rooms',
    {
      config: write,
      schema: {
        operationId: 'createRoom',
        summary: 'Create a room',
        tags: ['rooms'],
        body: CreateRoomInput,
        response: {
          201: Room,
          409: errorRef('A room with this id exists, or the tenant has its configured maximum of rooms.'),
        },
      },
    },
    async (request, reply) => {
      const room = await createRoom(requestContext(request, services), request.body);
      reply.status(201);
      return room;
    },
  );

  typed.get(
    '/v1/rooms',
    {
      config: read,
      schema: {
        operationId: 'listRooms',
        summary: 'List rooms, newest first; filter by metadata.<key>=<value>',
        tags: ['rooms'],
        querystring: ListQuery,
        response: { 200: RoomPage },
      },
    },
    async (request) => {
      const query = request.query;
      // Own properties only (fromEntries): `metadata.__proto__=x` filters as any key does.
      const metadata = Object.fromEntries(
        Object.entries(query).flatMap(([key, value]) => {
          const name = META.exec(key)?.[1];
          return name !== undefined && typeof value === 'string' ? [[name, value]] : [];
        }),
      );
      if (Object.keys(metadata).length > 10) {
        throw new InvalidRequest('at most 10 metadata filters', [
          { field: '/querystring', message: 'at most 10 metadata.<key> filters', code: 'too_many_filters' },
        ]);
      }
      return listRooms(requestContext(request, services), {
        metadata,
        cursor: typeof query.cursor === 'string' ? query.cursor : undefined,
        limit: typeof query.limit === 'number' ? query.limit : undefined,
      });
    },
  );

  typed.get(
    '/v1/rooms/:roomId',
    {
      config: read,
      schema: {
        operationId: 'getRoom',
        summary: 'Get a room',
        tags: ['rooms'],
        params: Params,
        response: { 200: Room },
      },
    },
    async (request) => getRoom(requestContext(request, services), request.params),
  );

  typed.patch(
    '/v1/rooms/:roomId',
    {
      config: write,
      schema: {
        operationId: 'updateRoom',
        summary: 'Rename a room or merge its metadata (null removes a key)',
        tags: ['rooms'],
        params: Params,
        body: PatchBody,
        response: { 200: Room },
      },
    },
    async (request) =>
      updateRoom(requestContext(request, services), {
        ...request.body,
        ...request.params,
      }),
  );

  typed.delete(
    '/v1/rooms/:roomId',
    {
      config: write,
      schema: {
        operationId: 'deleteRoom',
        summary: 'Delete a room',
        tags: ['rooms'],
        params: Params,
        response: { 200: Deleted },
      },
    },
    async (request) => deleteRoom(requestContext(request, services), request.params),
  );
}
