import { invalidProductKey } from '../../../core/auth/product-keys.ts';
import type { ServiceContext } from '../../../core/context.ts';
import { NotFound } from '../../../core/http/errors.ts';
import { type OperatorRow, resolveBrand } from '../operator-row.ts';
import { checkStorefrontOrigin } from '../port.ts';
import type { BrandValue, StorefrontView } from '../schema.ts';
import { getStorefront } from '../verbs/get-storefront.ts';
import { findOperatorRow } from './find-operator.ts';

/** What a public answer is made from: the storefront as the key's tenant (or operator) shows it. */
export interface PublicStorefront {
  storefront: StorefrontView;
  operator: OperatorRow | undefined;
  brand: BrandValue;
  /** The rooms whose published auctions are listed; undefined = every room. */
  roomIds: readonly string[] | undefined;
}

/**
 * The storefront behind the caller's product key. The storefront's own allowed origins apply beside the
 * key's (the authentication hook checked those): a browser on another origin gets 403 (`checkStorefrontOrigin`).
 */
export async function publicStorefront(
  ctx: ServiceContext,
  origin: string | undefined,
): Promise<PublicStorefront> {
  const operatorId = ctx.principal?.kind === 'product' ? ctx.principal.operatorId : undefined;
  const [storefront, operator] = await Promise.all([
    getStorefront(ctx),
    operatorId === undefined
      ? undefined
      : // A key whose operator was deleted went with it (other instances may hold it for a poll longer).
        findOperatorRow(ctx, operatorId).catch((error: unknown) => {
          throw error instanceof NotFound ? invalidProductKey() : error;
        }),
  ]);
  checkStorefrontOrigin(storefront.allowedOrigins, origin);
  const roomIds = operator?.listing.roomIds ?? storefront.listing.roomIds ?? undefined;
  return {
    storefront,
    operator,
    brand: resolveBrand(storefront.brand, operator?.brand),
    roomIds: roomIds ?? undefined,
  };
}
