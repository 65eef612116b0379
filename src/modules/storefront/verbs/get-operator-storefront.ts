import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { findOperatorRow } from '../lookups/find-operator.ts';
import { listingOf, resolveBrand } from '../operator-row.ts';
import type { OperatorStorefront } from '../schema.ts';
import { getStorefront } from './get-storefront.ts';

/** The operator's own overrides, and the brand its storefront and apps show (over the tenant's). */
export async function getOperatorStorefront(
  ctx: ServiceContext,
  { operatorId }: { operatorId: string },
): Promise<Static<typeof OperatorStorefront>> {
  const [operator, tenant] = await Promise.all([findOperatorRow(ctx, operatorId), getStorefront(ctx)]);
  return {
    operatorId,
    brand: operator.brand,
    listing: listingOf(operator.listing),
    resolvedBrand: resolveBrand(tenant.brand, operator.brand),
  };
}
