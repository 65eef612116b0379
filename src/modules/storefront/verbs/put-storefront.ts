import type { ServiceContext } from '../../../core/context.ts';
import { inTenant } from '../../../core/context.ts';
import type { StorefrontInput, StorefrontView } from '../schema.ts';
import { readStorefront } from '../storefront-row.ts';

/** Replaces the tenant's storefront configuration; fields left out take their defaults (PUT). */
export async function putStorefront(ctx: ServiceContext, input: StorefrontInput): Promise<StorefrontView> {
  return inTenant(ctx, async (tx) => {
    await tx.query(
      `insert into storefront_configs
              (tenant_id, brand, allowed_origins, listing, default_locale, default_currency, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7::timestamptz)
       on conflict (tenant_id) do update set brand = excluded.brand, allowed_origins = excluded.allowed_origins,
              listing = excluded.listing, default_locale = excluded.default_locale,
              default_currency = excluded.default_currency, updated_at = excluded.updated_at`,
      [
        ctx.tenantId,
        JSON.stringify(input.brand ?? {}),
        [...new Set((input.allowedOrigins ?? []).map((origin) => origin.toLowerCase()))],
        JSON.stringify(input.listing ?? {}),
        input.defaultLocale ?? 'en',
        input.defaultCurrency ?? 'EUR',
        new Date(ctx.clock.now()).toISOString(),
      ],
    );
    return readStorefront(tx);
  });
}
