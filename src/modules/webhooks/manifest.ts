import { PageQuery } from '../../core/http/pagination.ts';
import { ALL_WORKSPACES, defineAction, type ModuleManifest } from '../../core/modules/manifest.ts';
import { ENDPOINT_SECRET, PREVIOUS_ENDPOINT_SECRET } from './endpoint-secrets.ts';
import { webhookHooks } from './hooks.ts';
import { webhooksIds } from './ids.ts';
import { DELIVERY_RETENTION } from './retention.ts';
import { webhookRoutes } from './routes.ts';
import {
  CreateEndpointBody,
  Deleted,
  DeliveryPage,
  Endpoint,
  EndpointPage,
  EndpointRef,
  ListDeliveriesInput,
  WebhooksConfig,
} from './schema.ts';
import { DEAD_LETTERED_EVENT, TEST_EVENT } from './types.ts';
import { createEndpoint } from './verbs/create-endpoint.ts';
import { deleteEndpoint } from './verbs/delete-endpoint.ts';
import { listDeliveries } from './verbs/list-deliveries.ts';
import { listEndpoints } from './verbs/list-endpoints.ts';

export const webhooksModule: ModuleManifest = {
  name: 'webhooks',
  title: 'Webhooks',
  description: 'Signed, retried, dead-lettered deliveries of tenant events to your HTTP endpoints.',
  version: '1.0.0',
  scopes: ['webhooks:manage'],
  sessionScopes: [],
  eventTypes: [TEST_EVENT, DEAD_LETTERED_EVENT],
  configSchema: WebhooksConfig,
  idPrefixes: webhooksIds.prefixes,
  routes: webhookRoutes,
  migrations: new URL('./migrations/', import.meta.url),
  hooks: webhookHooks,
  encryptedColumns: [ENDPOINT_SECRET, PREVIOUS_ENDPOINT_SECRET],
  retention: [DELIVERY_RETENTION],
  actions: [
    defineAction({
      name: 'list_webhooks',
      title: 'List webhook endpoints',
      description: 'Webhook endpoints of the tenant (secrets are never shown).',
      input: PageQuery,
      output: EndpointPage,
      scope: 'webhooks:manage',
      route: 'listWebhooks',
      credentials: ['api_key'],
      access: 'read',
      confirmation: 'never',
      workspaceTypes: ALL_WORKSPACES,
      run: listEndpoints,
    }),
    defineAction({
      name: 'create_webhook',
      title: 'Create a webhook endpoint',
      description: 'Register a URL that receives signed tenant events; eventTypes null means all.',
      input: CreateEndpointBody,
      output: Endpoint,
      scope: 'webhooks:manage',
      route: 'createWebhook',
      credentials: ['api_key'],
      access: 'write',
      confirmation: 'never',
      workspaceTypes: ALL_WORKSPACES,
      run: createEndpoint,
    }),
    defineAction({
      name: 'delete_webhook',
      title: 'Delete a webhook endpoint',
      description: 'Delete an endpoint together with its delivery history.',
      input: EndpointRef,
      output: Deleted,
      scope: 'webhooks:manage',
      route: 'deleteWebhook',
      credentials: ['api_key'],
      access: 'destructive',
      confirmation: 'destructive',
      workspaceTypes: ALL_WORKSPACES,
      run: deleteEndpoint,
    }),
    defineAction({
      name: 'list_webhook_deliveries',
      title: 'List webhook deliveries',
      description: 'Deliveries newest first, filtered by endpoint, state and event type.',
      input: ListDeliveriesInput,
      output: DeliveryPage,
      scope: 'webhooks:manage',
      route: 'listWebhookDeliveries',
      credentials: ['api_key'],
      access: 'read',
      confirmation: 'never',
      workspaceTypes: ALL_WORKSPACES,
      run: listDeliveries,
    }),
  ],
};
