import type { FastifyInstance } from 'fastify';
import { assertAllEnabled, type ModuleEnablement } from './enablement.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The module a /v1 route belongs to: a tenant that disabled it gets 403 module_disabled. */
    module?: string;
  }
}

/**
 * Runs after authentication: the caller's tenant must have the route's module enabled. A callback hook
 * answered from the enablement cache when it is fresh.
 */
export function installModuleGuard(app: FastifyInstance, enablement: ModuleEnablement): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const module = request.routeOptions.config.module;
    const tenantId = request.principal?.tenantId;
    if (module === undefined || tenantId === undefined) return done();
    const states = enablement.cachedStates(tenantId);
    if (states === undefined) {
      enablement.assertEnabled(tenantId, [module]).then(() => done(), done);
      return;
    }
    try {
      assertAllEnabled(states, [module]);
    } catch (error) {
      return done(error as Error);
    }
    done();
  });
}
