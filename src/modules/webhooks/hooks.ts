import { randomBytes } from 'node:crypto';
import { EventBatch } from '../../core/events/store.ts';
import type { ModuleHooks, ModuleHost } from '../../core/modules/hooks.ts';
import { EndpointPresence, hasEnabledEndpoints } from './endpoint-presence.ts';
import { webhookOutbox } from './enqueue-deliveries.ts';
import { WebhookWorker } from './worker/worker.ts';

/**
 * Per app: the worker that delivers, and the outbox writer that queues deliveries with each event and
 * wakes a worker after commit when it queued any.
 */
export function webhookHooks(host: ModuleHost): ModuleHooks {
  const worker = new WebhookWorker({
    db: host.db,
    encryption: host.encryption,
    config: host.config,
    clock: host.clock,
    log: host.log,
    onRecorded: (outcome) => host.metrics?.webhookDeliveries.inc({ outcome }),
    // Dead-lettering records a tenant event in the worker's tenant-scoped transaction; the outbox leaves
    // out the endpoint that failed. Whichever instance's worker gave up, the event is broadcast to the
    // subscribers of every instance.
    emitTenantEvent: async (tx, tenantId, type, data) => {
      const batch = new EventBatch();
      const trace = {
        traceId: randomBytes(16).toString('hex'),
        spanId: randomBytes(8).toString('hex'),
        requestId: 'webhook-worker',
        origin: 'system' as const,
      };
      await host.events.insert(tx, tenantId, { type, data, trace }, batch);
      return () => host.events.publish(batch, { broadcast: true });
    },
  });
  return {
    worker,
    // Through the app's workers: when this instance's worker cannot take them at once (none runs here, or
    // it is full), the other instances' workers are woken. Tenants seen to have no enabled endpoint get a
    // check instead of the fan-out in one-statement writes (endpoint-presence.ts).
    outbox: webhookOutbox(
      (eventIds) => {
        if (eventIds.length > 0) host.workers.wake('webhooks');
      },
      new EndpointPresence(
        (tenantId) => hasEnabledEndpoints(host.db, tenantId),
        host.clock,
        (error) =>
          host.log.warn({ err: error }, 'webhooks: looking up whether a tenant has endpoints failed'),
      ),
    ),
  };
}
