import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { Config } from '../../config.ts';
import { ErrorResponse, errorRef } from './schemas.ts';

export const SECURITY_SCHEMES = {
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'Tenant API key (`svc_...`) as `Authorization: Bearer <API_KEY>`.',
  },
  apiKeyHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'Tenant API key in the `X-API-Key` header.',
  },
  hostedJwt: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Hosted-auth JWT from the console identity provider (or `svc dev-token` in development).',
  },
  sessionToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Short-lived session token minted by `POST /v1/runtime/connect`.',
  },
} as const;

export type SecuritySchemeName = keyof typeof SECURITY_SCHEMES;

type ResponseMap = Record<string, unknown>;

/**
 * Every route documents the errors it can answer with, derived from what it declares: input schemas ->
 * 400, a body -> 413/415, security -> 401/403. Routes must name themselves (operationId, summary).
 */
function addErrorResponses(route: RouteOptions): void {
  route.schema ??= {};
  const schema = route.schema;
  if (schema.hide === true) return;
  if (typeof schema.operationId !== 'string' || typeof schema.summary !== 'string') {
    throw new Error(`route ${String(route.method)} ${route.url} needs schema.operationId and schema.summary`);
  }
  schema.response ??= {};
  const responses = schema.response as ResponseMap;
  const add = (status: number, description: string) => {
    responses[status] ??= errorRef(description);
  };
  const secured = Array.isArray(schema.security) && schema.security.length > 0;
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const hasBody = schema.body !== undefined || methods.some((m) => ['POST', 'PUT', 'PATCH'].includes(m));
  if (
    schema.body !== undefined ||
    schema.querystring !== undefined ||
    schema.params !== undefined ||
    hasBody
  ) {
    add(400, 'The request is invalid; `details` lists each field problem.');
  }
  if (secured) {
    add(401, 'No credential, or it could not be verified (unauthorized, invalid_token, invalid_api_key).');
    add(403, 'The credential lacks the scope or role, or the module is disabled.');
  }
  add(404, 'Not found.');
  if (hasBody) {
    add(413, 'The body is larger than the limit.');
    add(415, 'The body is not application/json.');
  }
  add(429, 'Too many requests; see Retry-After.');
  add(500, 'Internal error.');
}

export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  app.addSchema(ErrorResponse);
  app.addHook('onRoute', addErrorResponses);
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
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true, validatorUrl: null },
    staticCSP: true,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(app.swagger()),
  );
}

/** OpenAPI security requirements for the credential kinds a route accepts. */
export function securityFor(
  ...kinds: ('api_key' | 'session' | 'hosted_user' | 'none')[]
): Record<string, string[]>[] {
  return kinds.flatMap((kind) => {
    switch (kind) {
      case 'api_key':
        return [{ apiKey: [] }, { apiKeyHeader: [] }];
      case 'session':
        return [{ sessionToken: [] }];
      case 'hosted_user':
        return [{ hostedJwt: [] }];
      default:
        return [{}];
    }
  });
}
