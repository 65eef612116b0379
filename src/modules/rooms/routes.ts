import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../core/context.ts';
import { requestContext } from '../../core/http/context.ts';
import { InvalidRequest } from '../../core/http/errors.ts';
import { PAGE_QUERY } from '../../core/http/pagination.ts';
import { errorRef } from '../../core/http/schemas.ts';
import {
  CreateRoomInput,
  Deleted,
  MAX_METADATA_FILTERS,
  METADATA_QUERY_PATTERN,
  Room,
  RoomId,
  RoomPage,
  UpdateRoomInput,
} from './schema.ts';
import { createRoom } from './verbs/create-room.ts';
import { deleteRoom } from './verbs/delete-room.ts';
import { getRoom } from './verbs/get-room.ts';
import { listRooms } from './verbs/list-rooms.ts';
import { updateRoom } from './verbs/update-room.ts';

const read = { module: 'rooms', auth: { credentials: ['api_key', 'session'] as const, scope: 'rooms:read' } };
const write = { module: 'rooms', auth: { credentials: ['api_key'] as const, scope: 'rooms:write' } };
const Params = Type.Object({ roomId: RoomId });
const META = /^metadata\.([A-Za-z0-9_.:-]{1,40})$/;

const ListQuery = Type.Object(PAGE_QUERY, {
  patternProperties: { [METADATA_QUERY_PATTERN]: Type.String({ maxLength: 256 }) },
  additionalProperties: false,
  description: 'Filter with metadata.<key>=<value> (ANDed)',
});

/** A rooms route's options: who may call it (`read` or `write`) and its documentation. */
function route<C extends typeof read | typeof write, S extends object>(
  config: C,
  operationId: string,
  summary: string,
  schema: S,
) {
  return { config, schema: { operationId, summary, tags: ['rooms'], ...schema } };
}

/** `?metadata.<key>=<value>` filters of a list query, as own properties (`metadata.__proto__` is a key too). */
function metadataFilters(query: Record<string, unknown>): Record<string, string> {
  const metadata = Object.fromEntries(
    Object.entries(query).flatMap(([key, value]) => {
      const name = META.exec(key)?.[1];
      return name !== undefined && typeof value === 'string' ? [[name, value]] : [];
    }),
  );
  if (Object.keys(metadata).length > MAX_METADATA_FILTERS) {
    throw new InvalidRequest(`at most ${MAX_METADATA_FILTERS} metadata filters`, [
      {
        field: '/querystring',
        message: `at most ${MAX_METADATA_FILTERS} metadata.<key> filters`,
        code: 'too_many_filters',
      },
    ]);
  }
  return metadata;
}

export async function roomRoutes(app: FastifyInstance, services: Services) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.post(
    '/v1/rooms',
    route(write, 'createRoom', 'Create a room', {
      body: CreateRoomInput,
      response: {
        201: Room,
        409: errorRef('A room with this id exists, or the tenant has its configured maximum of rooms.'),
      },
    }),
    async (request, reply) => {
      const room = await createRoom(requestContext(request, services), request.body);
      reply.status(201);
      return room;
    },
  );

  typed.get(
    '/v1/rooms',
    route(read, 'listRooms', 'List rooms, newest first; filter by metadata.<key>=<value>', {
      querystring: ListQuery,
      response: { 200: RoomPage },
    }),
    async (request) => {
      const query = request.query;
      return listRooms(requestContext(request, services), {
        metadata: metadataFilters(query),
        cursor: typeof query.cursor === 'string' ? query.cursor : undefined,
        limit: typeof query.limit === 'number' ? query.limit : undefined,
      });
    },
  );

  typed.get(
    '/v1/rooms/:roomId',
    route(read, 'getRoom', 'Get a room', { params: Params, response: { 200: Room } }),
    async (request) => getRoom(requestContext(request, services), request.params),
  );

  typed.patch(
    '/v1/rooms/:roomId',
    route(write, 'updateRoom', 'Rename a room or merge its metadata (null removes a key)', {
      params: Params,
      body: UpdateRoomInput,
      response: { 200: Room },
    }),
    async (request) => updateRoom(requestContext(request, services), { ...request.body, ...request.params }),
  );

  typed.delete(
    '/v1/rooms/:roomId',
    route(write, 'deleteRoom', 'Delete a room', { params: Params, response: { 200: Deleted } }),
    async (request) => deleteRoom(requestContext(request, services), request.params),
  );
}
