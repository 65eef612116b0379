import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import { registerApiReference } from './api-reference.ts';
import { spellHeaderNames } from './openapi/header-names.ts';
import { nameSchemas } from './openapi/named-schemas.ts';
import { addQueryPatterns, type QueryPatterns, recordQueryPatterns } from './openapi/query-patterns.ts';
import { describeResponses } from './openapi/response-descriptions.ts';
import { addErrorResponses, addReplayHeader } from './openapi/route-responses.ts';
import type { JsonObject } from './openapi/schema-walk.ts';
import { addSecurity, SECURITY_SCHEMES } from './openapi/security.ts';

/**
 * The OpenAPI document of every route, served at `/openapi.json` and rendered at `/docs`. Routes declare
 * what they are (operationId, summary, schemas, `config.auth`); what follows from that is added here:
 * security, error responses, the replay header. The generated document is then finished for client
 * generators: response descriptions, header names as the docs spell them, and every titled schema a named
 * component.
 */
export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  const queryPatterns: QueryPatterns = new Map();
  const derivedSecurity = new WeakSet<object>();
  app.addHook('onRoute', (route) => {
    recordQueryPatterns(route, queryPatterns);
    if (route.schema?.hide === true) return;
    addSecurity(route, derivedSecurity);
    addErrorResponses(route);
    addReplayHeader(route);
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'svc API',
        version: '1.0.0',
        description:
          'Multi-tenant runtime service: rooms, presence, chat, auctions, payments, webhooks, analytics and realtime sync. ' +
          'Errors share one body: `{ error, message, requestId, details? }`.',
      },
      servers: [{ url: config.publicUrl }],
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    transformObject: (documentObject) =>
      finish(
        'openapiObject' in documentObject ? documentObject.openapiObject : documentObject.swaggerObject,
        queryPatterns,
      ),
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  });
  // The servers entry is read when the document is served: with PORT=0 the public URL is known after listen.
  const document = () => ({ ...app.swagger(), servers: [{ url: config.publicUrl }] });
  registerApiReference(app, document);
  app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(document()),
  );
}

/**
 * Works on a JSON copy of the generated document: the generator's output shares schema objects between
 * routes (and holds TypeBox's symbols), and the copy is exactly what clients read. Built once per app.
 */
function finish<T>(generated: T, queryPatterns: QueryPatterns): T {
  const document = JSON.parse(JSON.stringify(generated)) as JsonObject;
  addQueryPatterns(document, queryPatterns);
  describeResponses(document);
  spellHeaderNames(document);
  nameSchemas(document);
  return document as T;
}
