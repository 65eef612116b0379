import type { ServiceContext } from '../../../core/context.ts';
import { publicStorefront } from '../lookups/public-storefront.ts';
import type { PublicBrandView } from '../public-schema.ts';

/** The resolved brand of the key's tenant, or of its operator over the tenant's. Only public fields. */
export async function getPublicBrand(
  ctx: ServiceContext,
  { origin }: { origin: string | undefined },
): Promise<PublicBrandView> {
  const { storefront, operator, brand } = await publicStorefront(ctx, origin);
  return {
    name: brand.name ?? operator?.name ?? 'Storefront',
    slogan: brand.slogan ?? null,
    shortDescription: brand.shortDescription ?? null,
    logoUrl: brand.logoUrl ?? null,
    coverImageUrl: brand.coverImageUrl ?? null,
    colors: brand.colors ?? {},
    links: brand.links ?? [],
    defaultLocale: storefront.defaultLocale,
    defaultCurrency: storefront.defaultCurrency,
    operator: operator === undefined ? null : { id: operator.id, name: operator.name, slug: operator.slug },
  };
}
