import { isoTime } from '../../core/db/database.ts';
import type { BrandValue, ListingValue, OperatorAppValue, OperatorView } from './schema.ts';

export interface OperatorRow {
  id: string;
  list_seq: number | string;
  name: string;
  slug: string;
  brand: BrandValue;
  app: OperatorAppValue;
  listing: ListingValue;
  created_at: string;
  updated_at: string;
}

export const OPERATOR_COLUMNS = `id, list_seq, name, slug, brand, app, listing,
  ${isoTime('created_at')} as created_at, ${isoTime('updated_at')} as updated_at`;

/** `{roomIds}` with null for "every room" (absent in storage). */
export const listingOf = (listing: ListingValue) => ({ roomIds: listing.roomIds ?? null });

export function toOperator(row: OperatorRow): OperatorView {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    brand: row.brand,
    app: row.app,
    listing: listingOf(row.listing),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The operator's brand over the tenant's, field by field (colors by color). */
export function resolveBrand(tenant: BrandValue, operator: BrandValue | undefined): BrandValue {
  if (operator === undefined) return tenant;
  const colors = { ...tenant.colors, ...operator.colors };
  return {
    ...tenant,
    ...operator,
    ...(Object.keys(colors).length === 0 ? {} : { colors }),
  };
}
