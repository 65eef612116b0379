import type { Queryable } from '../../core/db/database.ts';
import { PER_ATTEMPT, type WebhookDeliveryDetail } from './schema.ts';
import { deliveryHeaders } from './signing.ts';

/** The values `deliveryHeaders` makes anew at each attempt: shown as PER_ATTEMPT, never a signature. */
const VARYING = ['webhook-timestamp', 'webhook-signature', 'x-svc-signature'];

/**
 * The request a delivery's attempts send, for people reading the log: the endpoint's URL and the headers
 * of `deliveryHeaders` (the worker's own), with the per-attempt values (timestamp, signatures, span id)
 * left out, so a secret never reaches a reader.
 */
export async function deliveryRequest(
  tx: Queryable,
  tenantId: string,
  delivery: { id: string; endpoint_id: string; event_type: string; body: string },
): Promise<WebhookDeliveryDetail['request']> {
  const { rows } = await tx.query<{ url: string; trace_id: string; trace_flags: string }>(
    `select e.url, d.trace_id, d.trace_flags
       from webhook_deliveries d join webhook_endpoints e on e.tenant_id = d.tenant_id and e.id = d.endpoint_id
      where d.tenant_id = $1 and d.id = $2`,
    [tenantId, delivery.id],
  );
  const row = rows[0];
  if (row === undefined) throw new Error(`delivery ${delivery.id} has no endpoint row`);
  const headers = deliveryHeaders({
    deliveryId: delivery.id,
    eventType: delivery.event_type,
    body: delivery.body,
    secrets: [],
    timestampSeconds: 0,
    traceId: row.trace_id,
    traceFlags: row.trace_flags,
  });
  for (const name of VARYING) headers[name] = PER_ATTEMPT;
  headers.traceparent = `00-${row.trace_id}-${PER_ATTEMPT}-${row.trace_flags}`;
  return { url: row.url, headers };
}
