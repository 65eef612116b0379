import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../core/db/database.ts';
import { newId } from '../../core/ids.ts';

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

const TRACE_ID = /^(?!0{32})[0-9a-f]{32}$/;

/** The delivery body, serialized once: these exact bytes are signed and sent on every attempt. */
export function deliveryBody(
  id: string,
  type: string,
  createdAt: string,
  data: Record<string, unknown>,
): string {
  return JSON.stringify({ id, type, created_at: createdAt, data });
}

/**
 * Inserts pending deliveries due at `dueAt` in one statement. A delivery that already exists for the same
 * (endpoint, event) is left alone. Returns the ids actually inserted.
 */
export async function insertDeliveries(
  tx: Queryable,
  items: NewDelivery[],
  dueAt: number,
): Promise<string[]> {
  if (items.length === 0) return [];
  const columns = {
    id: [] as string[],
    tenant: [] as string[],
    endpoint: [] as string[],
    event: [] as string[],
    type: [] as string[],
    body: [] as string[],
    trace: [] as string[],
    flags: [] as string[],
  };
  for (const item of items) {
    const id = newId('webhookDelivery');
    columns.id.push(id);
    columns.tenant.push(item.tenantId);
    columns.endpoint.push(item.endpointId);
    columns.event.push(item.eventId);
    columns.type.push(item.eventType);
    columns.body.push(deliveryBody(id, item.eventType, item.eventCreatedAt, item.data));
    columns.trace.push(
      item.traceId !== undefined && TRACE_ID.test(item.traceId)
        ? item.traceId
        : randomBytes(16).toString('hex'),
    );
    columns.flags.push(item.sampled ? '01' : '00');
  }
  const due = new Date(dueAt).toISOString();
  const { rows } = await tx.query<{ id: string }>(
    `insert into webhook_deliveries
       (id, tenant_id, endpoint_id, event_id, event_type, body, trace_id, trace_flags, next_attempt_at, created_at)
     select id, tenant_id, endpoint_id, event_id, event_type, body, trace_id, trace_flags, $9, $9
       from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
            as t(id, tenant_id, endpoint_id, event_id, event_type, body, trace_id, trace_flags)
     on conflict (tenant_id, endpoint_id, event_id) do nothing
     returning id`,
    [
      columns.id,
      columns.tenant,
      columns.endpoint,
      columns.event,
      columns.type,
      columns.body,
      columns.trace,
      columns.flags,
      due,
    ],
  );
  return rows.map((r) => r.id);
}
