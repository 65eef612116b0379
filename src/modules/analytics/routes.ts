import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../core/context.ts';
import { requestContext } from '../../core/http/context.ts';
import { securityFor } from '../../core/http/openapi.ts';
import { errorRef } from '../../core/http/schemas.ts';
import {
  FunnelInput,
  FunnelResult,
  IngestBody,
  IngestResult,
  LIMITS,
  QueryInput,
  QueryResult,
} from './schema.ts';
import { ingestEvents } from './verbs/ingest-events.ts';
import { queryAnalytics } from './verbs/query-analytics.ts';
import { runFunnel } from './verbs/run-funnel.ts';

const write = {
  module: 'analytics',
  // A product key (browser use) is the key's whole grant: anonymous events or the actor the page names,
  // rate limited per key and client address, origin-restricted (core's product-key credential).
  auth: { credentials: ['api_key', 'session', 'product'] as const, scope: 'analytics:write' },
};
const read = { module: 'analytics', auth: { credentials: ['api_key'] as const, scope: 'analytics:read' } };

export async function analyticsRoutes(app: FastifyInstance, services: Services) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.post(
    '/v1/analytics/events',
    {
      config: write,
      bodyLimit: LIMITS.requestBytes,
      schema: {
        operationId: 'ingestAnalyticsEvents',
        summary: 'Record one event or a batch of up to 500 (202: counts accepted / duplicates / rejected)',
        tags: ['analytics'],
        security: securityFor('api_key', 'session', 'product'),
        body: IngestBody,
        response: {
          202: IngestResult,
          400: errorRef('A single event that is invalid, or a batch of more than 500 events'),
          403: errorRef(
            'A session token naming another actor than its own (single event), or a product key sent from an origin it does not allow',
          ),
          413: errorRef('A request body over 512 KiB'),
          429: errorRef(
            'A product key past its rate for this client address (Retry-After says when to retry)',
          ),
        },
      },
    },
    async (request, reply) => {
      const result = await ingestEvents(requestContext(request, services), request.body);
      reply.status(202);
      return result;
    },
  );

  typed.post(
    '/v1/analytics/query',
    {
      config: read,
      schema: {
        operationId: 'queryAnalytics',
        summary:
          'Counts, uniques, sums, averages over time buckets in a time zone, with breakdown and filters',
        tags: ['analytics'],
        security: securityFor('api_key'),
        body: QueryInput,
        response: {
          200: QueryResult,
          400: errorRef('An unknown time zone, an empty or too long range, too many buckets, a bad filter'),
        },
      },
    },
    async (request) => queryAnalytics(requestContext(request, services), request.body),
  );

  typed.post(
    '/v1/analytics/funnel',
    {
      config: read,
      schema: {
        operationId: 'analyticsFunnel',
        summary: 'An ordered funnel by unique actor, with a conversion window',
        tags: ['analytics'],
        security: securityFor('api_key'),
        body: FunnelInput,
        response: {
          200: FunnelResult,
          400: errorRef('An unknown time zone, an empty or too long range, a bad filter'),
        },
      },
    },
    async (request) => runFunnel(requestContext(request, services), request.body),
  );
}
