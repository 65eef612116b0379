import type { ServiceContext } from '../../../core/context.ts';
import { inTenant } from '../../../core/context.ts';
import { NotFound } from '../../../core/http/errors.ts';
import { announceProductKeyChange } from '../../../core/tenancy/product-keys.ts';

/**
 * Deletes the operator with its builds and its product keys; every instance stops accepting those keys
 * within a second (their deletion is announced like a revocation, in the same transaction).
 */
export async function deleteOperator(
  ctx: ServiceContext,
  { operatorId }: { operatorId: string },
): Promise<{ id: string; deleted: true }> {
  return inTenant(ctx, async (tx) => {
    const keys = await tx.query<{ id: string }>('select id from product_keys where operator_id = $1', [
      operatorId,
    ]);
    const at = new Date(ctx.clock.now());
    for (const key of keys.rows) await announceProductKeyChange(tx, ctx.tenantId, key.id, at);
    const { rows } = await tx.query('delete from operators where id = $1 returning id', [operatorId]);
    if (rows.length === 0) throw new NotFound('operator', operatorId);
    return { id: operatorId, deleted: true as const };
  });
}
