import type { ServiceContext } from '../../../core/context.ts';
import { tenantTx } from '../../../core/db/tenant-tx.ts';
import { validated } from '../../../core/modules/validate.ts';
import { findEndpoint } from '../find-rows.ts';
import { checkEndpointFields, distinctEventTypes, normalizedUrl } from '../input-rules.ts';
import { UpdateEndpointBody, type UpdateEndpointInput, type WebhookEndpoint } from '../schema.ts';
import { ENDPOINT_COLUMNS, type EndpointRow, endpointView } from '../views.ts';

const CLOSE_CIRCUIT =
  ', consecutive_timeouts = 0, circuit_trips = 0, circuit_opened_at = null, circuit_open_until = null';

/**
 * Fields left out stay as they are; the secret changes only through `rotateSecret`. A disabled endpoint
 * keeps its pending deliveries; they go out once it is enabled again. A new URL, or `enabled: true`, closes
 * the endpoint's circuit (worker/circuit.ts): its waiting deliveries go at once.
 */
export async function updateEndpoint(
  ctx: ServiceContext,
  input: UpdateEndpointInput,
): Promise<WebhookEndpoint> {
  const { id, ...fields } = input;
  const body = validated<Omit<UpdateEndpointInput, 'id'>>(UpdateEndpointBody, fields, 'body');
  checkEndpointFields(ctx.config, body);
  const sets: string[] = [];
  const values: unknown[] = [];
  const set = (column: string, value: unknown) => {
    values.push(value);
    sets.push(`${column} = $${values.length + 2}`);
  };
  if (body.url !== undefined) set('url', normalizedUrl(body.url));
  // Another receiver, or the operator says it is back: its circuit starts closed.
  const resets = body.url !== undefined || body.enabled === true;
  if (body.description !== undefined) set('description', body.description);
  if (body.eventTypes !== undefined) set('event_types', distinctEventTypes(body.eventTypes));
  if (body.enabled !== undefined) set('enabled', body.enabled);
  set('updated_at', new Date(ctx.clock.now()).toISOString());

  return tenantTx(ctx.db, ctx, async (tx) => {
    const current = await findEndpoint(tx, ctx.tenantId, id, { forUpdate: true });
    const { rows } = await tx.query<EndpointRow>(
      `update webhook_endpoints set ${sets.join(', ')}${resets ? CLOSE_CIRCUIT : ''} where tenant_id = $1 and id = $2
       returning ${ENDPOINT_COLUMNS}`,
      [ctx.tenantId, current.id, ...values],
    );
    const row = rows[0];
    if (row === undefined) throw new Error('update returned no row');
    return endpointView(row);
  });
}
