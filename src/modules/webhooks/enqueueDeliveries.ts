import type { Queryable } from '../../core/db/database.ts';
import { insertDeliveries } from './deliveryRows.ts';
import { matchesEventTypes } from './eventTypes.ts';
import { DEAD_LETTERED_EVENT, type WebhookEvent } from './types.ts';

export interface EnqueueOptions {
  /** Endpoints that must not receive this event. */
  excludeEndpointIds?: readonly string[];
  /** When the first attempt is due (ms since epoch); default: the event's createdAt, i.e. at once. */
  now?: number;
}

/**
 * The outbox fan-out: call it inside the transaction that writes the event, so no event commits without
 * its deliveries. One pending delivery per enabled endpoint of the event's tenant whose eventTypes is null
 * or matches. Works in a tenant transaction (RLS) or a system one. After commit, wake the worker when the
 * returned list is not empty.
 *
 * `webhook.delivery.dead_lettered` is never sent to the endpoint that failed (`data.endpointId`); and a
 * dead-lettering of such an event is not fanned out at all, so two failing endpoints cannot feed each
 * other dead-letter events forever.
 */
export async function enqueueDeliveries(
  tx: Queryable,
  event: WebhookEvent,
  options: EnqueueOptions = {},
): Promise<string[]> {
  const excluded = new Set(options.excludeEndpointIds ?? []);
  if (event.type === DEAD_LETTERED_EVENT) {
    if (event.data.eventType === DEAD_LETTERED_EVENT) return [];
    if (typeof event.data.endpointId === 'string') excluded.add(event.data.endpointId);
  }
  const { rows } = await tx.query<{ id: string; event_types: string[] | null }>(
    'select id, event_types from webhook_endpoints where tenant_id = $1 and enabled order by id',
    [event.tenantId],
  );
  const targets = rows.filter((r) => !excluded.has(r.id) && matchesEventTypes(r.event_types, event.type));
  if (targets.length === 0) return [];
  const createdAt = new Date(event.createdAt);
  if (Number.isNaN(createdAt.getTime())) throw new Error(`event ${event.id}: createdAt is not a valid time`);
  return insertDeliveries(
    tx,
    targets.map((target) => ({
      tenantId: event.tenantId,
      endpointId: target.id,
      eventId: event.id,
      eventType: event.type,
      data: event.data,
      eventCreatedAt: createdAt.toISOString(),
      traceId: event.trace?.traceId,
      sampled: event.trace?.sampled === true,
    })),
    options.now ?? createdAt.getTime(),
  );
}
