import type { FastifyInstance } from 'fastify';
import type { ModuleEnablement } from './enablement.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The module a /v1 route belongs to: a tenant that disabled it gets 403 module_disabled. */
    module?: string;
  }
}

/** Runs after authentication: the caller's tenant must have the route's module enabled. */
export function installModuleGuard(app: FastifyInstance, enablement: ModuleEnablement): void {
  app.addHook('onRequest', async (request) => {
    const module = request.routeOptions.config.module;
    const tenantId = request.principal?.tenantId;
    if (module === undefined || tenantId === undefined) return;
    await enablement.assertEnabled(tenantId, [module]);
  });
}
