import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../core/context.ts';
import { ledgerRoutes } from './ledger.ts';
import { paymentsRoutes } from './payments.ts';
import { refundsRoutes } from './refunds.ts';
import { stripeAccountRoutes } from './stripe-account.ts';
import { stripeWebhookRoute } from './stripe-webhook.ts';
import { timelineRoutes } from './timeline.ts';

/** The module's routes, one file per resource. */
export async function paymentRoutes(app: FastifyInstance, services: Services) {
  await paymentsRoutes(app, services);
  await refundsRoutes(app, services);
  await timelineRoutes(app, services);
  await stripeAccountRoutes(app, services);
  await ledgerRoutes(app, services);
  // Its own scope: Stripe's events are read as raw text (the signature is over the exact bytes).
  await app.register(async (scope) => stripeWebhookRoute(scope, services));
}
