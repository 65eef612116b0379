import { tenantTx } from '../../../core/db/tenant-tx.ts';
import { findEndpoint } from '../endpoint-rows.ts';
import { parseEventTypes } from '../event-types.ts';
import type { WebhookCtx, WebhookEndpoint } from '../types.ts';
import { checkBoolean, checkUrl, Problems } from '../validate.ts';
import { ENDPOINT_COLUMNS, type EndpointRow, endpointView } from '../views.ts';

/** Fields left out stay as they are. The secret changes only through `rotateSecret`. */
export interface UpdateEndpointInput {
  id: string;
  url?: string;
  eventTypes?: string[] | null;
  /** A disabled endpoint keeps its pending deliveries; they go out once it is enabled again. */
  enabled?: boolean;
}

export async function updateEndpoint(ctx: WebhookCtx, input: UpdateEndpointInput): Promise<WebhookEndpoint> {
  const problems = new Problems();
  const sets: string[] = [];
  const values: unknown[] = [];
  const set = (column: string, value: unknown) => {
    values.push(value);
    sets.push(`${column} = $${values.length + 2}`);
  };
  if (input.url !== undefined) set('url', checkUrl(problems, ctx.config, '/body/url', input.url));
  if (input.eventTypes !== undefined) {
    const parsed = parseEventTypes(input.eventTypes, '/body/eventTypes');
    if (parsed.ok) set('event_types', parsed.value);
    else problems.details.push(...parsed.details);
  }
  if (input.enabled !== undefined) set('enabled', checkBoolean(problems, '/body/enabled', input.enabled));
  if (sets.length === 0 && problems.details.length === 0) {
    problems.add('/body', 'give at least one of url, eventTypes, enabled', 'empty');
  }
  problems.throwIfAny();
  set('updated_at', new Date(ctx.clock.now()).toISOString());

  return tenantTx(ctx.db, ctx, async (tx) => {
    const current = await findEndpoint(tx, ctx.tenantId, input.id, { forUpdate: true });
    const { rows } = await tx.query<EndpointRow>(
      `update webhook_endpoints set ${sets.join(', ')} where tenant_id = $1 and id = $2
       returning ${ENDPOINT_COLUMNS}`,
      [ctx.tenantId, current.id, ...values],
    );
    const row = rows[0];
    if (row === undefined) throw new Error('update returned no row');
    return endpointView(row);
  });
}
