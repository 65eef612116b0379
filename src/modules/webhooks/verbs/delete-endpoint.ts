import { tenantTx } from '../../../core/db/tenant-tx.ts';
import { findEndpoint } from '../endpoint-rows.ts';
import type { WebhookCtx } from '../types.ts';

/**
 * Deletes the endpoint with its deliveries and their attempts. An attempt in flight at that moment
 * finishes, but its result has nowhere to go and is dropped.
 */
export async function deleteEndpoint(ctx: WebhookCtx, input: { id: string }): Promise<void> {
  await tenantTx(ctx.db, ctx, async (tx) => {
    const row = await findEndpoint(tx, ctx.tenantId, input.id);
    await tx.query('delete from webhook_endpoints where tenant_id = $1 and id = $2', [ctx.tenantId, row.id]);
  });
}
