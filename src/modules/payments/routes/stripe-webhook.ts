import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { type ServiceContext, type Services, serviceContext } from '../../../core/context.ts';
import { AppError, InvalidRequest, NotFound } from '../../../core/http/errors.ts';
import { errorRef } from '../../../core/http/schemas.ts';
import { idPattern } from '../../../core/ids.ts';
import { stripeSecrets } from '../providers/stripe-account.ts';
import { StripeProvider } from '../providers/stripe-provider.ts';
import { handleStripeEvent } from '../verbs/handle-stripe-event.ts';

/** Stripe's own default: a signature older than this is refused (replay protection). */
export const STRIPE_SIGNATURE_TOLERANCE_SECONDS = 300;

const Params = Type.Object({ tenantId: Type.String({ pattern: idPattern('tenant') }) });

function systemContext(request: FastifyRequest, services: Services, tenantId: string): ServiceContext {
  return serviceContext(services, {
    log: request.log,
    tenantId,
    principal: undefined,
    requestId: request.id,
    trace: request.trace,
    origin: 'system',
  });
}

/**
 * `POST /v1/payments/webhooks/stripe/:tenantId`: Stripe's events for one tenant. No credential: the
 * `Stripe-Signature` over the exact body, with the tenant's webhook secret, is the proof (checked by the
 * SDK). The body is read as text so the signature is checked over the bytes Stripe signed.
 */
export async function stripeWebhookRoute(app: FastifyInstance, services: Services) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    done(null, typeof body === 'string' ? body : body.toString('utf8'));
  });
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/v1/payments/webhooks/stripe/:tenantId',
    {
      schema: {
        operationId: 'receiveStripeWebhook',
        summary: 'Stripe’s events for a tenant (verified by Stripe-Signature)',
        // Not `payments`: no credential, so not a route of the shared security suite (see its tests).
        tags: ['payments-inbound'],
        params: Params,
        headers: Type.Object({ 'stripe-signature': Type.Optional(Type.String({ maxLength: 2000 })) }),
        response: {
          200: Type.Object(
            {
              received: Type.Literal(true),
              result: Type.Union([
                Type.Literal('applied'),
                Type.Literal('duplicate'),
                Type.Literal('ignored'),
              ]),
              paymentId: Type.Union([Type.String(), Type.Null()]),
            },
            {
              title: 'StripeWebhookReceipt',
              description: 'A Stripe event taken: applied, a duplicate of one applied before, or ignored',
            },
          ),
          400: errorRef(
            'The Stripe-Signature header is missing, forged or too old (`details[0].code` `bad_signature`).',
          ),
          404: errorRef('This tenant has no Stripe account.'),
        },
      },
    },
    async (request) => {
      const { tenantId } = request.params;
      const signature = request.headers['stripe-signature'];
      const body = typeof request.body === 'string' ? request.body : '';
      const secrets = await stripeSecrets(services, tenantId).catch((error: unknown) => {
        throw new AppError('internal_error', 'the tenant’s Stripe webhook secret could not be read', {
          cause: error,
        });
      });
      if (secrets === undefined) throw new NotFound('Stripe account of tenant', tenantId);
      let event: Awaited<ReturnType<typeof StripeProvider.verifyEvent>>;
      try {
        if (typeof signature !== 'string') throw new Error('no Stripe-Signature header');
        event = await StripeProvider.verifyEvent(
          body,
          signature,
          secrets.webhookSecret,
          STRIPE_SIGNATURE_TOLERANCE_SECONDS,
        );
      } catch (error) {
        throw new InvalidRequest(
          `the Stripe-Signature does not verify: ${error instanceof Error ? error.message : 'unknown reason'}`,
          [
            {
              field: '/headers/stripe-signature',
              message: 'is missing, forged or too old',
              code: 'bad_signature',
            },
          ],
        );
      }
      const provider = await StripeProvider.open({
        secretKey: secrets.secretKey,
        apiUrl: services.config.stripeApiUrl,
      });
      return handleStripeEvent(systemContext(request, services, tenantId), provider, event);
    },
  );
}
