import type { ServiceContext } from '../../../core/context.ts';
import { tenantTx } from '../../../core/db/tenant-tx.ts';
import { Conflict } from '../../../core/http/errors.ts';
import { validated } from '../../../core/modules/validate.ts';
import { ENDPOINT_SECRET, encryptSecret } from '../endpoint-secrets.ts';
import { newId } from '../ids.ts';
import { checkEndpointFields, distinctEventTypes, normalizedUrl } from '../input-rules.ts';
import {
  CreateEndpointBody,
  type CreateEndpointInput,
  MAX_ENDPOINTS_PER_TENANT,
  type WebhookEndpoint,
} from '../schema.ts';
import { ENDPOINT_COLUMNS, type EndpointRow, endpointView } from '../views.ts';

/**
 * The secret (the HMAC key) is stored encrypted, never returned; eventTypes null or absent means every
 * type.
 */
export async function createEndpoint(
  ctx: ServiceContext,
  input: CreateEndpointInput,
): Promise<WebhookEndpoint> {
  const body = validated<CreateEndpointInput>(CreateEndpointBody, input, 'body');
  const eventTypes = body.eventTypes ?? null;
  checkEndpointFields(ctx.config, { url: body.url, eventTypes });

  const now = new Date(ctx.clock.now()).toISOString();
  return tenantTx(ctx.db, ctx, async (tx) => {
    const { rows: counted } = await tx.query<{ n: number }>(
      'select count(*)::int as n from webhook_endpoints where tenant_id = $1',
      [ctx.tenantId],
    );
    if ((counted[0]?.n ?? 0) >= MAX_ENDPOINTS_PER_TENANT) {
      throw new Conflict(`a tenant can have at most ${MAX_ENDPOINTS_PER_TENANT} webhook endpoints`);
    }
    const id = newId('webhookEndpoint', ctx.clock.now());
    const { rows } = await tx.query<EndpointRow>(
      `insert into webhook_endpoints
         (id, tenant_id, url, secret_encrypted, event_types, enabled, created_at, updated_at, description)
       values ($1, $2, $3, $4, $5, $6, $7, $7, $8)
       returning ${ENDPOINT_COLUMNS}`,
      [
        id,
        ctx.tenantId,
        normalizedUrl(body.url),
        encryptSecret(
          ctx.encryption,
          ENDPOINT_SECRET,
          { tenantId: ctx.tenantId, endpointId: id },
          body.secret,
        ),
        distinctEventTypes(eventTypes),
        body.enabled ?? true,
        now,
        body.description ?? '',
      ],
    );
    const row = rows[0];
    if (row === undefined) throw new Error('insert returned no row');
    return endpointView(row);
  });
}
