import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type AccessRequest, accessRefusal, type TenantAccess } from './authorize.ts';
import type { ModuleEnablement, ModuleState } from './enablement.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The module a /v1 route belongs to: a tenant that disabled it gets 403 module_disabled. */
    module?: string;
  }
}

const EVERY_MODULE: TenantAccess = { isEnabled: () => true };

function accessOf(states: Map<string, ModuleState>): TenantAccess {
  return { isEnabled: (module) => states.get(module)?.enabled === true };
}

/** The room a route's path names (`:roomId`), if any. */
function roomOf(request: FastifyRequest): string | undefined {
  const params: unknown = request.params;
  if (typeof params !== 'object' || params === null || !('roomId' in params)) return undefined;
  return typeof params.roomId === 'string' ? params.roomId : undefined;
}

/**
 * Runs after authentication: the route's `authorize` check (scope, session module and room, module enabled
 * for the tenant). A callback hook answered from the enablement cache when it is fresh.
 */
export function installAuthorization(app: FastifyInstance, enablement: ModuleEnablement): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const principal = request.principal;
    const auth = request.routeOptions.config.auth;
    if (principal === undefined || auth === undefined) return done();
    const access: AccessRequest = {
      module: request.routeOptions.config.module,
      // A product key holds no scopes: the route naming `product` among its credentials is its grant.
      scope: principal.kind === 'product' ? undefined : auth.scope,
      roomId: roomOf(request),
    };
    const tenantId = principal.tenantId;
    if (access.module === undefined || tenantId === undefined) {
      return done(accessRefusal(principal, { ...access, module: undefined }, EVERY_MODULE));
    }
    const states = enablement.cachedStates(tenantId);
    if (states !== undefined) return done(accessRefusal(principal, access, accessOf(states)));
    enablement
      .states(tenantId)
      .then((fresh) => done(accessRefusal(principal, access, accessOf(fresh))), done);
  });
}
