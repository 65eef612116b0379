import type { ServiceContext } from '../../../core/context.ts';
import { tenantTx } from '../../../core/db/tenant-tx.ts';
import type { StorefrontView } from '../schema.ts';
import { readStorefront } from '../storefront-row.ts';

export async function getStorefront(ctx: Pick<ServiceContext, 'db' | 'tenantId'>): Promise<StorefrontView> {
  return tenantTx(ctx.db, { tenantId: ctx.tenantId }, (tx) => readStorefront(tx));
}
