import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../core/db/database.ts';
import { newId } from './ids.ts';

const TRACE_ID = /^(?!0{32})[0-9a-f]{32}$/;

/** The event's W3C trace id when it has a valid one, else a fresh one: every delivery carries a trace. */
export function deliveryTraceId(traceId: string | undefined): string {
  return traceId !== undefined && TRACE_ID.test(traceId) ? traceId : randomBytes(16).toString('hex');
}

export interface NewDelivery {
  tenantId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  data: Record<string, unknown>;
  /** ISO 8601 UTC with milliseconds: the body's `created_at`. */
  eventCreatedAt: string;
  traceId: string | undefined;
  sampled: boolean;
}

/**
 * Inserts one pending delivery due at `dueAt`, its body serialized once: these exact bytes are signed and
 * sent on every attempt. Returns its id, or undefined when the (endpoint, event) pair has one already.
 */
export async function insertDelivery(
  tx: Queryable,
  item: NewDelivery,
  dueAt: number,
): Promise<string | undefined> {
  const id = newId('webhookDelivery', dueAt);
  const body = JSON.stringify({ id, type: item.eventType, created_at: item.eventCreatedAt, data: item.data });
  const { rows } = await tx.query<{ id: string }>(
    `insert into webhook_deliveries
       (id, tenant_id, endpoint_id, event_id, event_type, body, trace_id, trace_flags, next_attempt_at, created_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
     on conflict (tenant_id, endpoint_id, event_id) do nothing
     returning id`,
    [
      id,
      item.tenantId,
      item.endpointId,
      item.eventId,
      item.eventType,
      body,
      deliveryTraceId(item.traceId),
      item.sampled ? '01' : '00',
      new Date(dueAt).toISOString(),
    ],
  );
  return rows[0]?.id;
}
