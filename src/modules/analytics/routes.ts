import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBodyParser, FastifyInstance } from 'fastify';
import { browserOrigin } from '../../core/auth/product-access.ts';
import type { Services } from '../../core/context.ts';
import { requestContext } from '../../core/http/context.ts';
import { AppError, InvalidRequest } from '../../core/http/errors.ts';
import { errorRef } from '../../core/http/schemas.ts';
import { storableJsonParser } from '../../core/http/server.ts';
import { assertStorefrontOrigin } from '../storefront/port.ts';
import { FunnelInput, FunnelResult, QueryInput, QueryResult } from './query-schema.ts';
import { ACTOR_ID_REPLACED, IngestBody, IngestResult, LIMITS } from './schema.ts';
import { ingestEvents } from './verbs/ingest-events.ts';
import { queryAnalytics } from './verbs/query-analytics.ts';
import { runFunnel } from './verbs/run-funnel.ts';

const write = {
  module: 'analytics',
  // A product key (browser use) is the key's whole grant: anonymous events or the actor the page names,
  // rate limited per key and client address, origin-restricted (the key's list and the storefront's).
  auth: { credentials: ['api_key', 'session', 'product'] as const, scope: 'analytics:write' },
};
const read = { module: 'analytics', auth: { credentials: ['api_key'] as const, scope: 'analytics:read' } };

export async function analyticsRoutes(app: FastifyInstance, services: Services) {
  // Its own scope: only ingestion reads a text/plain body as JSON.
  await app.register(async (scope) => ingestionRoute(scope, services));
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.post(
    '/v1/analytics/query',
    {
      config: read,
      schema: {
        operationId: 'queryAnalytics',
        summary:
          'Counts, uniques, sums, averages over time buckets in a time zone, with breakdown and filters',
        tags: ['analytics'],
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

/**
 * `POST /v1/analytics/events`. `navigator.sendBeacon` (and `fetch` with a string body and no Content-Type)
 * sends JSON as `text/plain`: this route reads it as JSON, under the same size limit and the same checks.
 */
async function ingestionRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, textJsonParser(app));
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/v1/analytics/events',
    {
      config: write,
      bodyLimit: LIMITS.requestBytes,
      // Before the schema's generic "not a known field": the old field's refusal says what replaced it.
      preValidation: async (request) => {
        const body = request.body;
        if (typeof body === 'object' && body !== null && Object.hasOwn(body, 'actorId')) {
          throw new InvalidRequest(ACTOR_ID_REPLACED, [
            { field: '/body/actorId', message: 'is not a known field: send actor', code: 'unknown_field' },
          ]);
        }
      },
      schema: {
        operationId: 'ingestAnalyticsEvents',
        summary: 'Record one event or a batch of up to 500 (202: counts accepted / duplicates / rejected)',
        description:
          'The body is JSON, sent as `application/json` or as `text/plain` (UTF-8), as `navigator.sendBeacon` sends it.',
        tags: ['analytics'],
        consumes: ['application/json', 'text/plain'],
        body: IngestBody,
        response: {
          202: IngestResult,
          400: errorRef('A single event that is invalid, or a batch of more than 500 events'),
          403: errorRef(
            "A session token naming another actor than its own (single event), or a browser origin that the product key or the storefront's allowedOrigins does not allow",
          ),
          413: errorRef('A request body over 512 KiB'),
          415: errorRef('A body that is neither application/json nor text/plain in UTF-8'),
          429: errorRef(
            'A product key past its rate for this client address (Retry-After says when to retry)',
          ),
        },
      },
    },
    async (request, reply) => {
      const ctx = requestContext(request, services);
      // A page's product key: the storefront's allowedOrigins apply as on /api/public/* (the key's own
      // list was applied when the key was verified).
      if (ctx.principal?.kind === 'product') await assertStorefrontOrigin(ctx, browserOrigin(request));
      const result = await ingestEvents(ctx, request.body);
      reply.status(202);
      return result;
    },
  );
}

/** JSON in a `text/plain` body: UTF-8 (a charset, if named, must be it), then the service's JSON parser. */
function textJsonParser(app: FastifyInstance): FastifyBodyParser<string | Buffer> {
  const parseJson = storableJsonParser(app);
  return (request, body, done) => {
    const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(request.headers['content-type'] ?? '')?.[1];
    if (charset !== undefined && charset.toLowerCase() !== 'utf-8') {
      return done(
        new AppError(
          'unsupported_media_type',
          `a text/plain body is read as UTF-8 JSON: send charset=UTF-8 or no charset, not ${charset}`,
        ),
        undefined,
      );
    }
    parseJson(request, body, done);
  };
}
