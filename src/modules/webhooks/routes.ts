import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type TProperties, Type } from 'typebox';
import type { Origin, Services } from '../../core/context.ts';
import { requestContext } from '../../core/http/context.ts';
import { PageQuery } from '../../core/http/pagination.ts';
import { errorRef } from '../../core/http/schemas.ts';
import { idPattern } from '../../core/ids.ts';
import type { Role } from '../../core/tenancy/roles.ts';
import { ReplayBody, ReplayResult } from './replay-schema.ts';
import {
  CreateEndpointBody,
  Deleted,
  Delivery,
  DeliveryDetail,
  DeliveryListQuery,
  DeliveryPage,
  DeliveryParams,
  Endpoint,
  EndpointPage,
  RotateSecretBody,
  UpdateEndpointBody,
  WebhookParams,
} from './schema.ts';
import { createEndpoint } from './verbs/create-endpoint.ts';
import { deleteEndpoint } from './verbs/delete-endpoint.ts';
import { getDelivery } from './verbs/get-delivery.ts';
import { getEndpoint } from './verbs/get-endpoint.ts';
import { listDeliveries } from './verbs/list-deliveries.ts';
import { listEndpoints } from './verbs/list-endpoints.ts';
import { redeliver } from './verbs/redeliver.ts';
import { replayDeadLettered } from './verbs/replay.ts';
import { rotateSecret } from './verbs/rotate-secret.ts';
import { sendTestEvent } from './verbs/send-test-event.ts';
import { updateEndpoint } from './verbs/update-endpoint.ts';

/** Where a set of webhook routes is mounted: the /v1 API (API keys) or the console (hosted users). */
interface Surface {
  prefix: string;
  operationPrefix: string;
  origin: Origin;
  config: Record<string, unknown>;
  /** Path parameters of the prefix (the console's :tenantId); the tenant comes from the principal. */
  params: TProperties;
}

function webhookRoutesOn(surface: Surface) {
  return async (app: FastifyInstance, services: Services) => {
    const typed = app.withTypeProvider<TypeBoxTypeProvider>();
    const ctx = (request: FastifyRequest) => requestContext(request, services, surface.origin);
    const operationId = (name: string) =>
      surface.operationPrefix === ''
        ? `${name.charAt(0).toLowerCase()}${name.slice(1)}`
        : `${surface.operationPrefix}${name}`;
    /**
     * The route options: the surface's auth and docs, and `params` joined to the prefix's own. Handlers
     * read only the route's own parameters (the console guard checks :tenantId), so the joined schema is
     * typed as the route's.
     */
    const route = <S extends { params: { properties: TProperties } }>(
      name: string,
      summary: string,
      schema: S,
    ) => ({
      config: surface.config,
      schema: {
        operationId: operationId(name),
        summary,
        tags: ['webhooks'],
        ...schema,
        params: Type.Object({ ...surface.params, ...schema.params.properties }) as S['params'],
      },
    });
    const none = Type.Object({});
    /** A delivery that now waits for its attempt; refused while one is pending or the endpoint is off. */
    const accepted = () => ({
      202: Delivery,
      409: errorRef('The endpoint is disabled, or the delivery is still pending.'),
    });
    const base = `${surface.prefix}/webhooks`;
    const deliveries = `${surface.prefix}/webhook-deliveries`;

    typed.post(
      base,
      route('CreateWebhook', 'Register a webhook endpoint (its secret signs every delivery)', {
        params: none,
        body: CreateEndpointBody,
        response: { 201: Endpoint, 409: errorRef('The tenant has the maximum number of endpoints.') },
      }),
      async (request, reply) => {
        const endpoint = await createEndpoint(ctx(request), request.body);
        return reply.status(201).send(endpoint);
      },
    );

    typed.get(
      base,
      route('ListWebhooks', 'Webhook endpoints of the tenant', {
        params: none,
        querystring: PageQuery,
        response: { 200: EndpointPage },
      }),
      async (request) => listEndpoints(ctx(request), request.query),
    );

    typed.get(
      `${base}/:webhookId`,
      route('GetWebhook', 'One webhook endpoint', { params: WebhookParams, response: { 200: Endpoint } }),
      async (request) => getEndpoint(ctx(request), { id: request.params.webhookId }),
    );

    typed.patch(
      `${base}/:webhookId`,
      route('UpdateWebhook', "Change an endpoint's url, event types or enabled flag", {
        params: WebhookParams,
        body: UpdateEndpointBody,
        response: { 200: Endpoint },
      }),
      async (request) => updateEndpoint(ctx(request), { id: request.params.webhookId, ...request.body }),
    );

    typed.delete(
      `${base}/:webhookId`,
      route('DeleteWebhook', 'Delete an endpoint with its deliveries', {
        params: WebhookParams,
        response: { 200: Deleted },
      }),
      async (request) => deleteEndpoint(ctx(request), { id: request.params.webhookId }),
    );

    typed.post(
      `${base}/:webhookId/rotate-secret`,
      route('RotateWebhookSecret', 'Replace the secret; the old one also signs during the grace period', {
        params: WebhookParams,
        body: RotateSecretBody,
        response: { 200: Endpoint },
      }),
      async (request) => rotateSecret(ctx(request), { id: request.params.webhookId, ...request.body }),
    );

    typed.post(
      `${base}/:webhookId/test`,
      route('TestWebhook', 'Send a webhook.test event to this endpoint only', {
        params: WebhookParams,
        response: accepted(),
      }),
      async (request, reply) => {
        const delivery = await sendTestEvent(ctx(request), { id: request.params.webhookId });
        return reply.status(202).send(delivery);
      },
    );

    typed.get(
      `${base}/:webhookId/deliveries`,
      route(
        'ListWebhookDeliveries',
        "An endpoint's deliveries, newest first; filter by state, event type and time",
        {
          params: WebhookParams,
          querystring: DeliveryListQuery,
          response: { 200: DeliveryPage },
        },
      ),
      async (request) =>
        listDeliveries(ctx(request), { endpointId: request.params.webhookId, ...request.query }),
    );

    typed.post(
      `${base}/:webhookId/replay`,
      route('ReplayWebhook', "Send again every one of the endpoint's dead-lettered deliveries since a time", {
        params: WebhookParams,
        body: ReplayBody,
        response: { 202: ReplayResult, 409: errorRef('The endpoint is disabled.') },
      }),
      async (request, reply) => {
        const replay = await replayDeadLettered(ctx(request), {
          id: request.params.webhookId,
          ...request.body,
        });
        return reply.status(202).send(replay);
      },
    );

    typed.get(
      `${deliveries}/:deliveryId`,
      route('GetWebhookDelivery', 'One delivery with its exact request and every attempt', {
        params: DeliveryParams,
        response: { 200: DeliveryDetail },
      }),
      async (request) => getDelivery(ctx(request), { id: request.params.deliveryId }),
    );

    typed.post(
      `${deliveries}/:deliveryId/redeliver`,
      route('RedeliverWebhook', 'Start a new attempt cycle for a delivered or dead-lettered delivery', {
        params: DeliveryParams,
        response: accepted(),
      }),
      async (request, reply) => {
        const delivery = await redeliver(ctx(request), { id: request.params.deliveryId });
        return reply.status(202).send(delivery);
      },
    );
  };
}

export const webhookApiRoutes = webhookRoutesOn({
  prefix: '/v1',
  operationPrefix: '',
  origin: 'api',
  config: { module: 'webhooks', auth: { credentials: ['api_key'], scope: 'webhooks:manage' } },
  params: {},
});

const consoleRole: Role = 'developer';
export const webhookConsoleRoutes = webhookRoutesOn({
  prefix: '/api/console/tenants/:tenantId',
  operationPrefix: 'console',
  origin: 'console',
  config: { auth: { credentials: ['hosted_user'] }, minRole: consoleRole },
  params: { tenantId: Type.String({ pattern: idPattern('tenant') }) },
});

/** Both surfaces: the module's routes entry point. */
export async function webhookRoutes(app: FastifyInstance, services: Services): Promise<void> {
  await webhookApiRoutes(app, services);
  await webhookConsoleRoutes(app, services);
}
