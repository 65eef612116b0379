import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifySchema } from 'fastify';
import type { TSchema } from 'typebox';
import { Type } from 'typebox';
import type { Services } from '../../../core/context.ts';
import { requestContext } from '../../../core/http/context.ts';
import { IdempotencyHeaders, markReplayed } from '../../../core/http/idempotency.ts';
import { errorRef } from '../../../core/http/schemas.ts';
import { PaymentId } from '../schema/common.ts';
import { Payment } from '../schema/payment.ts';

/** A routes file's app with TypeBox types, and the service context of a request. */
export function typedRoutes(app: FastifyInstance, services: Services) {
  return {
    typed: app.withTypeProvider<TypeBoxTypeProvider>(),
    ctx: (request: Parameters<typeof requestContext>[0]) => requestContext(request, services),
  };
}

/** Reads: API keys, and session tokens (which see their own actor's payments). */
export const read = {
  module: 'payments',
  auth: { credentials: ['api_key', 'session'] as const, scope: 'payments:read' },
};

/** Who may call: API keys holding `scope`; an `idempotent` route is safe to retry under an Idempotency-Key. */
export function apiKeysWith(scope: string, { idempotent }: { idempotent: boolean }) {
  return { module: 'payments', idempotent, auth: { credentials: ['api_key'] as const, scope } };
}

/** Writes move money: API keys only, each safe to retry under an Idempotency-Key. */
export const write = apiKeysWith('payments:write', { idempotent: true });

export const tags = ['payments'];
export const PaymentParams = Type.Object({ paymentId: PaymentId });

/**
 * A route's options: who may call it (`config`) and its OpenAPI operation, named and summarized, tagged
 * `payments` unless `schema` says otherwise.
 */
export function route<C extends FastifyContextConfig, S extends FastifySchema>(
  config: C,
  operationId: string,
  summary: string,
  schema: S,
) {
  return { config, schema: { operationId, summary, tags, ...schema } };
}

/** What every idempotent route may answer besides its own conflicts. */
const KEY_RUNNING = 'or a request with this Idempotency-Key is still running';
const KEY_REUSED =
  '`idempotency_conflict`: this Idempotency-Key was used with another request (method, path or body)';

/** A 409 of an idempotent route: its own conflicts (`causes`), then the Idempotency-Key's. */
function keyedConflicts(causes: string) {
  return errorRef(`\`conflict\`: ${causes}, ${KEY_RUNNING}; ${KEY_REUSED}.`);
}

/**
 * An idempotent write's options (see `route`): the Idempotency-Key header documented, and its 409 for
 * `conflicts` (its own causes) or the key's.
 */
export function keyedRoute<C extends FastifyContextConfig, S extends FastifySchema & { response: object }>(
  config: C,
  operationId: string,
  summary: string,
  conflicts: string,
  schema: S,
) {
  const response = { ...schema.response, 409: keyedConflicts(conflicts) };
  return route(config, operationId, summary, { headers: IdempotencyHeaders, ...schema, response });
}

/** What an idempotent create answers: 201 with what it made, marked replayed when the key had made it. */
export function created<T>(reply: FastifyReply, made: { replayed: boolean }, value: T): T {
  if (made.replayed) markReplayed(reply);
  reply.status(201);
  return value;
}

/** A change of one payment (`POST /v1/payments/:paymentId/<change>`): a write that answers the payment. */
export function paymentChange<B extends TSchema>(operationId: string, summary: string, body: B) {
  return keyedRoute(
    write,
    operationId,
    summary,
    'the payment’s status does not allow this (the message names it and what it needs), a provider call of this payment is still running, the provider refused the request',
    { params: PaymentParams, body, response: { 200: Payment } },
  );
}
