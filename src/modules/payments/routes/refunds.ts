import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../core/context.ts';
import { idempotencyBinding } from '../../../core/http/idempotency.ts';
import { PageQuery } from '../../../core/http/pagination.ts';
import { errorRef } from '../../../core/http/schemas.ts';
import { Refund, RefundBody, RefundPage } from '../schema/refund.ts';
import { listRefunds } from '../verbs/list-refunds.ts';
import { refundKeyed } from '../verbs/refund-payment.ts';
import { apiKeysWith, created, keyedRoute, PaymentParams, read, route, typedRoutes } from './shared.ts';

/** Refunds move money back: their own scope, `payments:refund`. */
const refund = apiKeysWith('payments:refund', { idempotent: true });

/** A payment's refunds: make one, list them. */
export async function refundsRoutes(app: FastifyInstance, services: Services) {
  const { typed, ctx } = typedRoutes(app, services);

  typed.post(
    '/v1/payments/:paymentId/refunds',
    keyedRoute(
      refund,
      'refundPayment',
      'Refund a succeeded payment, in whole (default) or in part',
      'the payment is not succeeded (the message names its status), the provider refused the refund',
      {
        params: PaymentParams,
        body: Type.Optional(RefundBody),
        response: {
          201: Refund,
          400: errorRef('Malformed, or more than is left to refund (`details[0].code` `amount_too_large`).'),
        },
      },
    ),
    async (request, reply) => {
      const input = { ...(request.body ?? {}), ...request.params };
      const made = await refundKeyed(ctx(request), input, idempotencyBinding(request));
      return created(reply, made, made.refund);
    },
  );

  typed.get(
    '/v1/payments/:paymentId/refunds',
    route(read, 'listRefunds', 'A payment’s refunds, oldest first', {
      params: PaymentParams,
      querystring: PageQuery,
      response: { 200: RefundPage },
    }),
    async (request) => listRefunds(ctx(request), { ...request.query, ...request.params }),
  );
}
