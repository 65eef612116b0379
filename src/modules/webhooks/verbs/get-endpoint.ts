import { tenantTx } from '../../../core/db/tenant-tx.ts';
import { findEndpoint } from '../endpoint-rows.ts';
import type { WebhookCtx, WebhookEndpoint } from '../types.ts';
import { endpointView } from '../views.ts';

export async function getEndpoint(ctx: WebhookCtx, input: { id: string }): Promise<WebhookEndpoint> {
  return tenantTx(ctx.db, ctx, async (tx) => endpointView(await findEndpoint(tx, ctx.tenantId, input.id)));
}
