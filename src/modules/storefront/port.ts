import { OriginNotAllowed, originAllowed } from '../../core/auth/product-access.ts';
import type { ServiceContext } from '../../core/context.ts';
import { getStorefront } from './verbs/get-storefront.ts';

/**
 * The storefront's origin rule: a browser on an origin that the tenant's storefront `allowedOrigins` does
 * not list (empty: any) gets 403 `forbidden`, without `Access-Control-Allow-Origin`. It applies beside each
 * product key's own list, on every route a storefront page calls with its key: `/api/public/*` and
 * analytics ingestion. A request without `Origin` (a server, a phone app) is not a browser and passes.
 */
export function checkStorefrontOrigin(allowedOrigins: readonly string[], origin: string | undefined): void {
  if (origin === undefined || originAllowed(allowedOrigins, origin)) return;
  throw new OriginNotAllowed(
    `the origin ${origin} is not allowed by this storefront; add it to the storefront's allowedOrigins in the console`,
  );
}

/** `checkStorefrontOrigin` for another module's route: reads the storefront only for a browser's request. */
export async function assertStorefrontOrigin(
  ctx: Pick<ServiceContext, 'db' | 'tenantId'>,
  origin: string | undefined,
): Promise<void> {
  if (origin === undefined) return;
  checkStorefrontOrigin((await getStorefront(ctx)).allowedOrigins, origin);
}
