import type { FastifyInstance } from 'fastify';
import type { Services } from '../../core/context.ts';
import { buildCallbackRoutes } from './callback-routes.ts';
import { storefrontConsoleRoutes } from './console-routes.ts';
import { storefrontPublicRoutes } from './public-routes.ts';

/** The console's storefront and operator routes, the public surface, and the build callback. */
export async function storefrontRoutes(app: FastifyInstance, services: Services): Promise<void> {
  await storefrontConsoleRoutes(app, services);
  await storefrontPublicRoutes(app, services);
  await app.register(async (scope) => buildCallbackRoutes(scope, services));
}
