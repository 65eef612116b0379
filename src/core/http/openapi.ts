import swagger from '@fastify/swagger';
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { Config } from '../../config.ts';
import type { RouteAuth } from '../auth/authenticate.ts';
import { registerApiReference } from './api-reference.ts';
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
  productKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-SVC-Product-Key',
    description:
      'Publishable product key (`pk_live_...`, created in the console): safe to embed in a page or an app. ' +
      'Grants only the routes that list it; may be limited to browser origins (others: 403 `forbidden`) and ' +
      'is rate limited per key and client address (429 `rate_limited` with `Retry-After`). Missing or ' +
      'unknown: 401 `invalid_api_key`.',
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
  addSecurity(route);
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
  add(503, 'A dependency (the database, or Redis when configured) does not answer; retry later.');
}

/**
 * A route declares who may call it once, in `config.auth` (the runtime check, authenticate.ts); its OpenAPI
 * `security` is derived from that here, so the two cannot part. A route without `config.auth` is public and
 * says so: `security: []` (an empty requirement list).
 */
function addSecurity(route: RouteOptions): void {
  const schema = route.schema ?? {};
  const auth = (route.config as { auth?: RouteAuth } | undefined)?.auth;
  if (schema.security !== undefined && derivedSecurity.has(schema.security)) return; // HEAD, from its GET
  if (schema.security !== undefined) {
    throw new Error(
      `route ${String(route.method)} ${route.url} sets schema.security by hand; declare config.auth instead`,
    );
  }
  const security =
    auth === undefined
      ? []
      : securityFor(...(auth.optional === true ? ['none' as const] : []), ...auth.credentials);
  derivedSecurity.add(security);
  schema.security = security;
}

const derivedSecurity = new WeakSet<object>();

/**
 * A route with `config.idempotent` answers a replayed request with `Idempotent-Replayed: true` (see
 * idempotency.ts): each of its 2xx responses documents the header, on a copy of the response schema
 * (shared schema objects serve other routes too).
 */
function addReplayHeader(route: RouteOptions): void {
  if ((route.config as { idempotent?: boolean } | undefined)?.idempotent !== true) return;
  const responses = route.schema?.response as ResponseMap | undefined;
  if (responses === undefined) return;
  for (const [status, schema] of Object.entries(responses)) {
    if (!status.startsWith('2') || typeof schema !== 'object' || schema === null) continue;
    responses[status] = {
      ...schema,
      headers: {
        'Idempotent-Replayed': {
          type: 'string',
          enum: ['true'],
          description: 'Present on a replay: the first answer to this Idempotency-Key, byte for byte.',
        },
      },
    };
  }
}

/**
 * Query parameters named by a pattern (`metadata.<key>`) are in the querystring schema as
 * `patternProperties`, which the generator drops: they are added to the document as one exploded form
 * object, the OpenAPI 3.1 way to say "any parameter whose name matches".
 */
type QueryPatterns = Map<string, { name: string; patternProperties: unknown; description?: string }>;

function recordQueryPatterns(route: RouteOptions, queryPatterns: QueryPatterns): void {
  const query = route.schema?.querystring as
    | { patternProperties?: unknown; description?: string }
    | undefined;
  if (query?.patternProperties === undefined) return;
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const path = route.url.replace(/:(\w+)/g, '{$1}');
  for (const method of methods) {
    queryPatterns.set(`${method.toLowerCase()} ${path}`, {
      name: 'filters',
      patternProperties: query.patternProperties,
      ...(query.description === undefined ? {} : { description: query.description }),
    });
  }
}

type OpenApiDocument = { paths?: Record<string, Record<string, { parameters?: unknown[] }>> };

function addQueryPatterns<T>(document: T, queryPatterns: QueryPatterns): T {
  const paths = (document as OpenApiDocument).paths ?? {};
  for (const [key, pattern] of queryPatterns) {
    const [method = '', path = ''] = key.split(' ');
    const operation = paths[path]?.[method];
    if (operation === undefined) continue;
    const parameters = operation.parameters ?? [];
    if (parameters.some((p) => (p as { name?: string }).name === pattern.name)) continue;
    operation.parameters = [
      ...parameters,
      {
        name: pattern.name,
        in: 'query',
        style: 'form',
        explode: true,
        required: false,
        ...(pattern.description === undefined ? {} : { description: pattern.description }),
        schema: { type: 'object', patternProperties: pattern.patternProperties, additionalProperties: false },
      },
    ];
  }
  return document;
}

export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  app.addSchema(ErrorResponse);
  const queryPatterns: QueryPatterns = new Map();
  app.addHook('onRoute', (route) => {
    addErrorResponses(route);
    addReplayHeader(route);
    recordQueryPatterns(route, queryPatterns);
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
      addQueryPatterns(
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

/** OpenAPI security requirements for the credential kinds a route accepts (`none`: it may be called without). */
function securityFor(
  ...kinds: ('api_key' | 'session' | 'hosted_user' | 'product' | 'none')[]
): Record<string, string[]>[] {
  return kinds.flatMap((kind) => {
    switch (kind) {
      case 'api_key':
        return [{ apiKey: [] }, { apiKeyHeader: [] }];
      case 'session':
        return [{ sessionToken: [] }];
      case 'hosted_user':
        return [{ hostedJwt: [] }];
      case 'product':
        return [{ productKey: [] }];
      default:
        return [{}];
    }
  });
}
