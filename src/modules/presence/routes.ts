import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../core/context.ts';
import { requestContext } from '../../core/http/context.ts';
import { PageQuery } from '../../core/http/pagination.ts';
import { MemberList, RoomId } from './schema.ts';
import { listPresence } from './verbs/list-presence.ts';

const Params = Type.Object({ roomId: RoomId });

export async function presenceRoutes(app: FastifyInstance, services: Services) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.get(
    '/v1/rooms/:roomId/presence',
    {
      config: { module: 'presence', auth: { credentials: ['api_key', 'session'], scope: 'presence:read' } },
      schema: {
        operationId: 'listPresence',
        summary: 'Members of a room now: one per actor, with state and connection count, a page at a time',
        tags: ['presence'],
        params: Params,
        querystring: PageQuery,
        response: { 200: MemberList },
      },
    },
    async (request) =>
      listPresence(requestContext(request, services), { ...request.query, ...request.params }),
  );
}
