import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../core/context.ts';
import { IdempotencyHeaders, idempotencyBinding, markReplayed } from '../../../core/http/idempotency.ts';
import { PageQuery } from '../../../core/http/pagination.ts';
import { errorRef } from '../../../core/http/schemas.ts';
import { Refund, RefundBody, RefundPage } from '../schema/refund.ts';
import { listRefunds } from '../verbs/list-refunds.ts';
import { refundKeyed } from '../verbs/refund-payment.ts';
import { keyedConflicts, PaymentParams, read, tags, typedRoutes } from './shared.ts';

/** Refunds move money back: their own scope, `payments:refund`. */
const refund = {
  module: 'payments',
  idempotent: true,
  auth: { credentials: ['api_key'] as const, scope: 'payments:refund' },
};
const REFUND_409 = keyedConflicts(
  'the payment is not succeeded (the message names its status), the provider refused the refund',
);

/** A payment's refunds: make one, list them. */
export async function refundsRoutes(app: FastifyInstance, services: Services) {
  const { typed, ctx } = typedRoutes(app, services);

  typed.post(
    '/v1/payments/:paymentId/refunds',
    {
      config: refund,
      schema: {
        operationId: 'refundPayment',
        summary: 'Refund a succeeded payment, in whole (default) or in part',
        tags,
        headers: IdempotencyHeaders,
        params: PaymentParams,
        body: Type.Optional(RefundBody),
        response: {
          201: Refund,
          400: errorRef('Malformed, or more than is left to refund (`details[0].code` `amount_too_large`).'),
          409: REFUND_409,
        },
      },
    },
    async (request, reply) => {
      const input = { ...(request.body ?? {}), ...request.params };
      const created = await refundKeyed(ctx(request), input, idempotencyBinding(request));
      if (created.replayed) markReplayed(reply);
      reply.status(201);
      return created.refund;
    },
  );

  typed.get(
    '/v1/payments/:paymentId/refunds',
    {
      config: read,
      schema: {
        operationId: 'listRefunds',
        summary: 'A payment’s refunds, oldest first',
        tags,
        params: PaymentParams,
        querystring: PageQuery,
        response: { 200: RefundPage },
      },
    },
    async (request) => listRefunds(ctx(request), { ...request.query, ...request.params }),
  );
}
