/**
 * Webhooks: signed, retried, dead-lettered deliveries of tenant events. Verbs take `(ctx, input)` and
 * run in a tenant transaction; the event store adds each event's deliveries through `webhookOutbox` (in
 * the statement that writes the event); each instance runs one `WebhookWorker` (see hooks.ts).
 */
export { type CreateEndpointInput, createEndpoint, MAX_ENDPOINTS_PER_TENANT } from './createEndpoint.ts';
export { deleteEndpoint } from './deleteEndpoint.ts';
export { isBlockedAddress } from './destinations.ts';
export {
  type EnqueueOptions,
  enqueueDeliveries,
  eventTypeMatchSql,
  webhookOutbox,
} from './enqueueDeliveries.ts';
export { getDelivery } from './getDelivery.ts';
export { getEndpoint } from './getEndpoint.ts';
export { type ListDeliveriesInput, listDeliveries } from './listDeliveries.ts';
export { type ListEndpointsInput, listEndpoints } from './listEndpoints.ts';
export { redeliver } from './redeliver.ts';
export { type RotateSecretInput, rotateSecret } from './rotateSecret.ts';
export { sendTestEvent } from './sendTestEvent.ts';
export { standardSignature, svcSignature, USER_AGENT } from './signing.ts';
export * from './types.ts';
export { type UpdateEndpointInput, updateEndpoint } from './updateEndpoint.ts';
export type { Resolver } from './worker/lookup.ts';
export { WebhookWorker, type WebhookWorkerOptions, type WorkerLog } from './worker/worker.ts';
