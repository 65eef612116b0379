import { tenantTx } from '../../../core/db/tenant-tx.ts';
import { Conflict } from '../../../core/http/errors.ts';
import { newId } from '../../../core/ids.ts';
import { parseEventTypes } from '../event-types.ts';
import type { WebhookCtx, WebhookEndpoint } from '../types.ts';
import { checkSecret, checkUrl, Problems } from '../validate.ts';
import { ENDPOINT_COLUMNS, type EndpointRow, endpointView } from '../views.ts';

export const MAX_ENDPOINTS_PER_TENANT = 100;

export interface CreateEndpointInput {
  url: string;
  /** At least 16 characters; the HMAC key. Never returned. */
  secret: string;
  /** null or absent = every event type. */
  eventTypes?: string[] | null;
  enabled?: boolean;
}

export async function createEndpoint(ctx: WebhookCtx, input: CreateEndpointInput): Promise<WebhookEndpoint> {
  const problems = new Problems();
  const url = checkUrl(problems, ctx.config, '/body/url', input.url);
  const secret = checkSecret(problems, '/body/secret', input.secret);
  const eventTypes = parseEventTypes(input.eventTypes ?? null, '/body/eventTypes');
  if (!eventTypes.ok) problems.details.push(...eventTypes.details);
  if (input.enabled !== undefined && typeof input.enabled !== 'boolean') {
    problems.add('/body/enabled', 'must be true or false', 'type');
  }
  problems.throwIfAny();

  const now = new Date(ctx.clock.now()).toISOString();
  return tenantTx(ctx.db, ctx, async (tx) => {
    const { rows: counted } = await tx.query<{ n: number }>(
      'select count(*)::int as n from webhook_endpoints where tenant_id = $1',
      [ctx.tenantId],
    );
    if ((counted[0]?.n ?? 0) >= MAX_ENDPOINTS_PER_TENANT) {
      throw new Conflict(`a tenant can have at most ${MAX_ENDPOINTS_PER_TENANT} webhook endpoints`);
    }
    const { rows } = await tx.query<EndpointRow>(
      `insert into webhook_endpoints (id, tenant_id, url, secret, event_types, enabled, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $7)
       returning ${ENDPOINT_COLUMNS}`,
      [
        newId('webhookEndpoint'),
        ctx.tenantId,
        url,
        secret,
        eventTypes.ok ? eventTypes.value : null,
        input.enabled ?? true,
        now,
      ],
    );
    const row = rows[0];
    if (row === undefined) throw new Error('insert returned no row');
    return endpointView(row);
  });
}
