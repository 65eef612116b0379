import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import type { Origin, Services } from '../../core/context.ts';
import { requestContext } from '../../core/http/context.ts';
import { securityFor } from '../../core/http/openapi.ts';
import { idPattern } from '../../core/ids.ts';
import type { Role } from '../../core/tenancy/roles.ts';
import {
  CreateEndpointBody,
  Delivery,
  DeliveryDetail,
  DeliveryListQuery,
  Endpoint,
  ListQuery,
  pageOf,
  RotateSecretBody,
  UpdateEndpointBody,
} from './schema.ts';
import type { WebhookCtx } from './types.ts';
import { createEndpoint } from './verbs/create-endpoint.ts';
import { deleteEndpoint } from './verbs/delete-endpoint.ts';
import { getDelivery } from './verbs/get-delivery.ts';
import { getEndpoint } from './verbs/get-endpoint.ts';
import { listDeliveries } from './verbs/list-deliveries.ts';
import { listEndpoints } from './verbs/list-endpoints.ts';
import { redeliver } from './verbs/redeliver.ts';
import { rotateSecret } from './verbs/rotate-secret.ts';
import { sendTestEvent } from './verbs/send-test-event.ts';
import { updateEndpoint } from './verbs/update-endpoint.ts';

/** Where a set of webhook routes is mounted: the /v1 API (API keys) or the console (hosted users). */
interface Surface {
  prefix: string;
  operationPrefix: string;
  origin: Origin;
  config: Record<string, unknown>;
  security: Record<string, string[]>[];
  /** Extra path parameters of the prefix (the console's :tenantId). */
  params: Record<string, TSchema>;
}

const WebhookId = Type.String({ pattern: idPattern('webhookEndpoint') });
const DeliveryId = Type.String({ pattern: idPattern('webhookDelivery') });

function webhookRoutesOn(surface: Surface) {
  return async (app: FastifyInstance, services: Services) => {
    const ctx = (request: FastifyRequest): WebhookCtx & { tenantId: string } => ({
      ...requestContext(request, services, surface.origin),
      wake: () => services.workers.wake('webhooks'),
    });
    const params = (extra: Record<string, TSchema> = {}) => Type.Object({ ...surface.params, ...extra });
    const route = (operationId: string, summary: string, schema: Record<string, unknown>) => ({
      config: surface.config,
      schema: {
        operationId:
          surface.operationPrefix === ''
            ? `${operationId.charAt(0).toLowerCase()}${operationId.slice(1)}`
            : `${surface.operationPrefix}${operationId}`,
        summary,
        tags: ['webhooks'],
        security: surface.security,
        ...schema,
      },
    });
    const base = `${surface.prefix}/webhooks`;
    const deliveries = `${surface.prefix}/webhook-deliveries`;
    const webhookId = (request: FastifyRequest) => (request.params as { webhookId: string }).webhookId;
    const deliveryId = (request: FastifyRequest) => (request.params as { deliveryId: string }).deliveryId;

    app.post(
      base,
      route('CreateWebhook', 'Register a webhook endpoint (its secret signs every delivery)', {
        params: params(),
        body: CreateEndpointBody,
        response: { 201: Endpoint },
      }),
      async (request, reply) => {
        const endpoint = await createEndpoint(
          ctx(request),
          request.body as Static<typeof CreateEndpointBody>,
        );
        reply.status(201);
        return endpoint;
      },
    );

    app.get(
      base,
      route('ListWebhooks', 'Webhook endpoints of the tenant', {
        params: params(),
        querystring: ListQuery,
        response: { 200: pageOf(Endpoint) },
      }),
      async (request) => listEndpoints(ctx(request), request.query as Static<typeof ListQuery>),
    );

    app.get(
      `${base}/:webhookId`,
      route('GetWebhook', 'One webhook endpoint', {
        params: params({ webhookId: WebhookId }),
        response: { 200: Endpoint },
      }),
      async (request) => getEndpoint(ctx(request), { id: webhookId(request) }),
    );

    app.patch(
      `${base}/:webhookId`,
      route('UpdateWebhook', "Change an endpoint's url, event types or enabled flag", {
        params: params({ webhookId: WebhookId }),
        body: UpdateEndpointBody,
        response: { 200: Endpoint },
      }),
      async (request) =>
        updateEndpoint(ctx(request), {
          id: webhookId(request),
          ...(request.body as Static<typeof UpdateEndpointBody>),
        }),
    );

    app.delete(
      `${base}/:webhookId`,
      route('DeleteWebhook', 'Delete an endpoint with its deliveries', {
        params: params({ webhookId: WebhookId }),
        response: { 200: Type.Object({ id: Type.String(), deleted: Type.Literal(true) }) },
      }),
      async (request) => {
        await deleteEndpoint(ctx(request), { id: webhookId(request) });
        return { id: webhookId(request), deleted: true as const };
      },
    );

    app.post(
      `${base}/:webhookId/rotate-secret`,
      route('RotateWebhookSecret', 'Replace the secret; the old one also signs during the grace period', {
        params: params({ webhookId: WebhookId }),
        body: RotateSecretBody,
        response: { 200: Endpoint },
      }),
      async (request) =>
        rotateSecret(ctx(request), {
          id: webhookId(request),
          ...(request.body as Static<typeof RotateSecretBody>),
        }),
    );

    app.post(
      `${base}/:webhookId/test`,
      route('TestWebhook', 'Send a webhook.test event to this endpoint only', {
        params: params({ webhookId: WebhookId }),
        response: { 202: Delivery },
      }),
      async (request, reply) => {
        const delivery = await sendTestEvent(ctx(request), { id: webhookId(request) });
        reply.status(202);
        return delivery;
      },
    );

    app.get(
      `${base}/:webhookId/deliveries`,
      route(
        'ListWebhookDeliveries',
        "An endpoint's deliveries, newest first; filter by state and event type",
        {
          params: params({ webhookId: WebhookId }),
          querystring: DeliveryListQuery,
          response: { 200: pageOf(Delivery) },
        },
      ),
      async (request) =>
        listDeliveries(ctx(request), {
          endpointId: webhookId(request),
          ...(request.query as Static<typeof DeliveryListQuery>),
        }),
    );

    app.get(
      `${deliveries}/:deliveryId`,
      route('GetWebhookDelivery', 'One delivery with its exact body and every attempt', {
        params: params({ deliveryId: DeliveryId }),
        response: { 200: DeliveryDetail },
      }),
      async (request) => getDelivery(ctx(request), { id: deliveryId(request) }),
    );

    app.post(
      `${deliveries}/:deliveryId/redeliver`,
      route('RedeliverWebhook', 'Start a new attempt cycle for a delivered or dead-lettered delivery', {
        params: params({ deliveryId: DeliveryId }),
        response: { 202: Delivery },
      }),
      async (request, reply) => {
        const delivery = await redeliver(ctx(request), { id: deliveryId(request) });
        reply.status(202);
        return delivery;
      },
    );
  };
}

export const webhookApiRoutes = webhookRoutesOn({
  prefix: '/v1',
  operationPrefix: '',
  origin: 'api',
  config: { module: 'webhooks', auth: { credentials: ['api_key'], scope: 'webhooks:manage' } },
  security: securityFor('api_key'),
  params: {},
});

const consoleRole: Role = 'developer';
export const webhookConsoleRoutes = webhookRoutesOn({
  prefix: '/api/console/tenants/:tenantId',
  operationPrefix: 'console',
  origin: 'console',
  config: { auth: { credentials: ['hosted_user'] }, minRole: consoleRole },
  security: securityFor('hosted_user'),
  params: { tenantId: Type.String({ pattern: idPattern('tenant') }) },
});

/** Both surfaces: the module's routes entry point. */
export async function webhookRoutes(app: FastifyInstance, services: Services): Promise<void> {
  await webhookApiRoutes(app, services);
  await webhookConsoleRoutes(app, services);
}
