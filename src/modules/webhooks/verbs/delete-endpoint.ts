import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { tenantTx } from '../../../core/db/tenant-tx.ts';
import { findEndpoint } from '../find-rows.ts';
import type { Deleted, EndpointRef } from '../schema.ts';

/**
 * Deletes the endpoint with its deliveries and their attempts. An attempt in flight at that moment
 * finishes, but its result has nowhere to go and is dropped.
 */
export async function deleteEndpoint(
  ctx: ServiceContext,
  input: Static<typeof EndpointRef>,
): Promise<Static<typeof Deleted>> {
  await tenantTx(ctx.db, ctx, async (tx) => {
    const row = await findEndpoint(tx, ctx.tenantId, input.id);
    await tx.query('delete from webhook_endpoints where tenant_id = $1 and id = $2', [ctx.tenantId, row.id]);
  });
  return { id: input.id, deleted: true };
}
