import type { Config } from '../../config.ts';
import type { Clock } from '../../core/clock.ts';
import type { Database, Queryable } from '../../core/db/database.ts';
import type { TraceContext } from '../../core/http/request-id.ts';

/**
 * What every webhook verb needs: the platform services and the tenant the caller was resolved to.
 * A `ServiceContext` fits as it is (add `wake`).
 */
export interface WebhookCtx {
  db: Database;
  config: Config;
  clock: Clock;
  tenantId: string;
  /** The caller's trace, forwarded as `traceparent` on deliveries this verb queues (test, redeliver). */
  trace?: TraceContext | undefined;
  /** Called after a commit that queued deliveries (pass the worker's `wake`). */
  wake?: (() => void) | undefined;
}

export type DeliveryState = 'pending' | 'delivered' | 'dead_lettered';
export const DELIVERY_STATES: readonly DeliveryState[] = ['pending', 'delivered', 'dead_lettered'];

export type AttemptErrorClass = 'timeout' | 'connect' | 'tls' | 'http' | 'interrupted';

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

/** The stored endpoint as callers see it. The secret is never returned. */
export interface WebhookEndpoint {
  id: string;
  url: string;
  eventTypes: string[] | null;
  enabled: boolean;
  /** Set while a rotated-out secret still signs. */
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  state: DeliveryState;
  attemptCount: number;
  /** Pending only: when the next attempt is due. */
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  lastStatusCode: number | null;
  lastErrorClass: AttemptErrorClass | null;
  createdAt: string;
  deliveredAt: string | null;
  deadLetteredAt: string | null;
}

export interface WebhookAttempt {
  attempt: number;
  /** 1 for the first cycle; each redelivery starts the next. */
  cycle: number;
  startedAt: string;
  durationMs: number | null;
  statusCode: number | null;
  errorClass: AttemptErrorClass | null;
  errorMessage: string | null;
  /** The first 1 KiB of the response body. */
  responseBodyExcerpt: string | null;
}

export interface WebhookDeliveryDetail extends WebhookDelivery {
  /** The exact JSON body sent. */
  body: string;
  attempts: WebhookAttempt[];
}

export interface Page<T> {
  data: T[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}
