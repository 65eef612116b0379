import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../core/context.ts';
import { StripeAccount, StripeAccountBody, StripeAccountStatus } from '../schema/stripe-account.ts';
import { deleteStripeAccount } from '../verbs/delete-stripe-account.ts';
import { getStripeAccount } from '../verbs/get-stripe-account.ts';
import { setStripeAccount } from '../verbs/set-stripe-account.ts';
import { apiKeysWith, route, typedRoutes } from './shared.ts';

/** The tenant's Stripe keys: set, read (never a secret) and removed with an API key holding payments:write. */
const stripeKeys = apiKeysWith('payments:write', { idempotent: false });

/** `/v1/payments/providers/stripe`: the tenant's Stripe keys. */
export async function stripeAccountRoutes(app: FastifyInstance, services: Services) {
  const { typed, ctx } = typedRoutes(app, services);

  typed.put(
    '/v1/payments/providers/stripe',
    route(
      stripeKeys,
      'setStripeAccount',
      'Set the tenant’s Stripe keys (stored encrypted); then set the module config provider to stripe',
      { body: StripeAccountBody, response: { 200: StripeAccount } },
    ),
    async (request) => setStripeAccount(ctx(request), request.body),
  );

  typed.get(
    '/v1/payments/providers/stripe',
    route(
      stripeKeys,
      'getStripeAccount',
      'Whether the tenant’s Stripe keys are set: mode (test or live), last 4 characters, when set; never a secret',
      { response: { 200: StripeAccountStatus } },
    ),
    async (request) => getStripeAccount(ctx(request)),
  );

  typed.delete(
    '/v1/payments/providers/stripe',
    route(
      stripeKeys,
      'deleteStripeAccount',
      'Remove the tenant’s Stripe keys; Stripe payments then answer 409 until keys are set again',
      { response: { 204: Type.Null({ description: 'Removed (or none were set)' }) } },
    ),
    async (request, reply) => {
      await deleteStripeAccount(ctx(request));
      return reply.code(204).send(null);
    },
  );
}
