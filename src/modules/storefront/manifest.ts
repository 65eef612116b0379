import type { ModuleManifest } from '../../core/modules/manifest.ts';
import { moduleScopes } from '../../core/modules/module-scopes.ts';
import { storefrontIds } from './ids.ts';
import { storefrontRoutes } from './routes.ts';
import { StorefrontConfig } from './schema.ts';

/**
 * Storefront: operators (the businesses a tenant runs white-label apps for), the storefront configuration,
 * the public surface product keys read (`/api/public/*`: brand, published auctions) and mobile builds.
 */
export const storefrontModule: ModuleManifest = {
  name: 'storefront',
  title: 'Storefront',
  description:
    'Brand metadata and published auction listings for storefronts and white-label apps (product keys), operators, and mobile build dispatch.',
  version: '1.0.0',
  ...moduleScopes('storefront', ['read']),
  eventTypes: ['mobile_build.queued', 'mobile_build.succeeded', 'mobile_build.failed'],
  configSchema: StorefrontConfig,
  idPrefixes: storefrontIds.prefixes,
  routes: storefrontRoutes,
  migrations: new URL('./migrations/', import.meta.url),
  actions: [],
};
