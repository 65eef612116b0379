import type { Queryable } from '../../core/db/database.ts';
import { isoTime } from '../../core/db/database.ts';
import type { BrandValue, ListingValue, StorefrontView } from './schema.ts';

export interface StorefrontRow {
  brand: BrandValue;
  allowed_origins: string[];
  listing: ListingValue;
  default_locale: string;
  default_currency: string;
  updated_at: string | null;
}

/** The tenant's storefront, or the defaults when it never saved one (brand name: the tenant's name). */
export async function readStorefront(tx: Queryable): Promise<StorefrontView> {
  const { rows } = await tx.query<StorefrontRow & { tenant_name: string }>(
    `select t.name as tenant_name, s.brand, s.allowed_origins, s.listing, s.default_locale, s.default_currency,
            ${isoTime('s.updated_at')} as updated_at
       from tenants t left join storefront_configs s on s.tenant_id = t.id
      where t.id = current_setting('svc.tenant_id', true)`,
  );
  const row = rows[0];
  if (row === undefined || row.brand === null) {
    return {
      brand: { name: row?.tenant_name ?? 'Storefront' },
      allowedOrigins: [],
      listing: { roomIds: null },
      defaultLocale: 'en',
      defaultCurrency: 'EUR',
      updatedAt: null,
    };
  }
  return {
    // The brand's name defaults to the tenant's.
    brand: { name: row.tenant_name, ...row.brand },
    allowedOrigins: row.allowed_origins,
    listing: { roomIds: row.listing.roomIds ?? null },
    defaultLocale: row.default_locale,
    defaultCurrency: row.default_currency,
    updatedAt: row.updated_at,
  };
}
