/**
 * Webhooks: signed, retried, dead-lettered deliveries of tenant events. Verbs take `(ctx, input)` and
 * run in a tenant transaction; the event store adds each event's deliveries through `webhookOutbox` (in
 * the statement that writes the event); each instance runs one `WebhookWorker` (see hooks.ts).
 */
export { isBlockedAddress } from './destinations.ts';
export {
  type EnqueueOptions,
  enqueueDeliveries,
  eventTypeMatchSql,
  webhookOutbox,
} from './enqueue-deliveries.ts';
export * from './schema.ts';
export { standardSignature, svcSignature, USER_AGENT } from './signing.ts';
export * from './types.ts';
export { createEndpoint } from './verbs/create-endpoint.ts';
export { deleteEndpoint } from './verbs/delete-endpoint.ts';
export { getDelivery } from './verbs/get-delivery.ts';
export { getEndpoint } from './verbs/get-endpoint.ts';
export { listDeliveries } from './verbs/list-deliveries.ts';
export { listEndpoints } from './verbs/list-endpoints.ts';
export { redeliver } from './verbs/redeliver.ts';
export { replayDeadLettered } from './verbs/replay.ts';
export { rotateSecret } from './verbs/rotate-secret.ts';
export { sendTestEvent } from './verbs/send-test-event.ts';
export { updateEndpoint } from './verbs/update-endpoint.ts';
export type { Resolver } from './worker/lookup.ts';
export { WebhookWorker, type WebhookWorkerOptions, type WorkerLog } from './worker/worker.ts';
