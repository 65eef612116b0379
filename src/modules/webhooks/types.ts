import type { Queryable } from '../../core/db/database.ts';

/**
 * A tenant event as the event store hands it to the fan-out (same transaction as the event row).
 * The core `TenantEvent` (src/core/events/types.ts) fits this shape.
 */
export interface WebhookEvent {
  /** `evt_...` */
  id: string;
  tenantId: string;
  type: string;
  data: Record<string, unknown>;
  /** When the event happened; becomes `created_at` of the body and the first attempt's due time. */
  createdAt: Date | string;
  trace?: { traceId: string; sampled?: boolean } | undefined;
}

/**
 * The port the worker calls when a delivery is dead-lettered, inside the transaction that dead-letters it.
 * The transaction is already scoped to `tenantId` (role svc_tenant, svc.tenant_id set), like `tenantTx`.
 * The event store writes the event with its deliveries as for any event: for
 * `webhook.delivery.dead_lettered`, the fan-out itself leaves out the endpoint named in `data.endpointId`,
 * so the emitter needs no special case.
 */
export type EmitTenantEvent = (
  tx: Queryable,
  tenantId: string,
  type: string,
  data: Record<string, unknown>,
) => Promise<AfterCommit>;

/** Run once the transaction that recorded an event has committed: publishes it (live fan-out, worker wake). */
export type AfterCommit = () => void;

export const DEAD_LETTERED_EVENT = 'webhook.delivery.dead_lettered';
export const TEST_EVENT = 'webhook.test';
