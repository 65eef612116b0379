import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../core/context.ts';
import { EventListQuery, EventPage } from '../../core/events/routes.ts';
import { eventToWire } from '../../core/events/store.ts';
import { listEvents } from '../../core/events/verbs.ts';
import { requestContext } from '../../core/http/context.ts';
import { consoleRoute, TenantParams } from './route-options.ts';

export async function consoleEventRoutes(app: FastifyInstance, services: Services) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.get(
    '/api/console/tenants/:tenantId/events',
    consoleRoute('viewer', {
      operationId: 'listConsoleEvents',
      summary: "The tenant's events, as GET /v1/events shows them",
      params: TenantParams,
      querystring: EventListQuery,
      response: { 200: EventPage },
    }),
    async (request) => {
      const page = await listEvents(requestContext(request, services, 'console'), request.query);
      return { data: page.data.map(eventToWire), nextCursor: page.nextCursor };
    },
  );
}
