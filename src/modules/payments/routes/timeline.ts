import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../core/context.ts';
import { EventSchema } from '../../../core/events/routes.ts';
import { Page, PageQuery } from '../../../core/http/pagination.ts';
import { listPaymentEvents } from '../verbs/list-payment-events.ts';
import { PaymentParams, route, typedRoutes } from './shared.ts';

/** Events name API keys and console users in their trace: API keys only, as `GET /v1/events`. */
const timelineRead = {
  module: 'payments',
  auth: { credentials: ['api_key'] as const, scope: 'payments:read' },
};

const PaymentEventPage = Page(
  EventSchema,
  'PaymentEventPage',
  'A page of a payment’s payment.* and refund.* events, oldest first',
);

/** `GET /v1/payments/:paymentId/events`: the payment's timeline, from the tenant's event log. */
export async function timelineRoutes(app: FastifyInstance, services: Services) {
  const { typed, ctx } = typedRoutes(app, services);

  typed.get(
    '/v1/payments/:paymentId/events',
    route(
      timelineRead,
      'listPaymentEvents',
      'A payment’s timeline: its payment.* and refund.* events, oldest first (kept as long as the event log keeps events)',
      { params: PaymentParams, querystring: PageQuery, response: { 200: PaymentEventPage } },
    ),
    async (request) => listPaymentEvents(ctx(request), { ...request.query, ...request.params }),
  );
}
