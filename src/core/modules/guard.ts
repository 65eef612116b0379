import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { isAuthenticationHook, type RouteAuth, routeHooks } from '../auth/authenticate.ts';
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
 * for the tenant). A route hook of the routes that declare `config.auth`, right after their authentication
 * hook; a callback hook answered from the enablement cache when it is fresh.
 */
export function installAuthorization(app: FastifyInstance, enablement: ModuleEnablement): void {
  const authorize =
    (auth: RouteAuth, module: string | undefined): onRequestHookHandler =>
    (request, _reply, done) => {
      const principal = request.principal;
      if (principal === undefined) return done();
      const access: AccessRequest = {
        module,
        // A product key holds no scopes: the route naming `product` among its credentials is its grant.
        scope: principal.kind === 'product' ? undefined : auth.scope,
        roomId: roomOf(request),
      };
      const tenantId = principal.tenantId;
      if (module === undefined || tenantId === undefined) {
        return done(accessRefusal(principal, { ...access, module: undefined }, EVERY_MODULE));
      }
      const states = enablement.cachedStates(tenantId);
      if (states !== undefined) return done(accessRefusal(principal, access, accessOf(states)));
      enablement
        .states(tenantId)
        .then((fresh) => done(accessRefusal(principal, access, accessOf(fresh))), done);
    };
  app.addHook('onRoute', (route) => {
    const auth = route.config?.auth;
    if (auth === undefined) return;
    const hooks = routeHooks(route.onRequest);
    const after = hooks.findIndex(isAuthenticationHook) + 1;
    hooks.splice(after, 0, authorize(auth, route.config?.module));
    route.onRequest = hooks;
  });
}
