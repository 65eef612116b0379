import type { RouteOptions } from 'fastify';
import { errorRef } from '../schemas.ts';

type ResponseMap = Record<string, unknown>;

/**
 * Every route documents the errors it can answer with, derived from what it declares: input schemas ->
 * 400, a body -> 413/415, security -> 401/403. Routes must name themselves (operationId, summary).
 * Runs after `addSecurity`, which gives every documented route its `security`.
 */
export function addErrorResponses(route: RouteOptions): void {
  route.schema ??= {};
  const schema = route.schema;
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
  add(503, 'A dependency (the database, or Redis when configured) does not answer; retry later.');
}

/**
 * A route with `config.idempotent` answers a replayed request with `Idempotent-Replayed: true` (see
 * idempotency.ts): each of its 2xx responses documents the header, on a copy of the response schema
 * (shared schema objects serve other routes too).
 */
export function addReplayHeader(route: RouteOptions): void {
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
