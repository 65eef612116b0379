import type { FastifyInstance, FastifyRequest, preHandlerHookHandler } from 'fastify';
import { routeHooks } from '../../core/auth/authenticate.ts';
import { hostedUser } from '../../core/auth/principal.ts';
import type { Services, TenantContext } from '../../core/context.ts';
import type { Database } from '../../core/db/database.ts';
import { AppError, NotFound } from '../../core/http/errors.ts';
import { atLeast, type Role } from '../../core/tenancy/roles.ts';
import { membershipRole } from '../../core/tenancy/tenants.ts';

/**
 * A console route addressed by another record than its tenant (`/api/console/operators/:operatorId/...`):
 * the path parameter that names it, what it is called in a 404, and how to find its tenant (undefined when
 * there is no such record). The guard then checks the caller's membership of that tenant as for :tenantId.
 */
export interface ConsoleTenantOf {
  param: string;
  resource: string;
  resolve(id: string): Promise<string | undefined>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Console tenant routes: the least role that may call. */
    minRole?: Role;
    /** Console routes whose path names a record of the tenant instead of the tenant itself. */
    tenantOf?: ConsoleTenantOf;
  }
  interface FastifyRequest {
    membershipRole: Role | undefined;
  }
}

/**
 * Tenant routes under /api/console/tenants/:tenantId: the caller's membership decides. Not a member ->
 * 404 (the tenant's existence is not revealed); a member with too low a role -> 403 forbidden.
 * The checked tenant becomes the principal's tenant for everything the handler does.
 */
export function installConsoleGuard(app: FastifyInstance, db: Database): void {
  app.decorateRequest('membershipRole', undefined);
  const check = async (request: FastifyRequest, minRole: Role, tenantOf: ConsoleTenantOf | undefined) => {
    const principal = hostedUser(request.principal);
    const named = tenantOf === undefined ? undefined : stringParam(request, tenantOf.param);
    const tenantId =
      tenantOf === undefined
        ? stringParam(request, 'tenantId')
        : named === undefined
          ? undefined
          : await tenantOf.resolve(named);
    // A record of a tenant the caller is no member of is as unknown as one that does not exist.
    const notFound = () =>
      tenantOf === undefined ? new NotFound('tenant', tenantId) : new NotFound(tenantOf.resource, named);
    if (tenantId === undefined) throw notFound();
    const role = await membershipRole(db, tenantId, principal.userId);
    if (role === undefined) throw notFound();
    if (!atLeast(role, minRole)) {
      throw new AppError('forbidden', `this needs the ${minRole} role or higher; you are ${role}`);
    }
    request.membershipRole = role;
    request.principal = { ...principal, tenantId };
  };
  // A route hook of the console tenant routes only (first among their own), so every other request runs
  // none of it.
  app.addHook('onRoute', (route) => {
    const minRole = route.config?.minRole;
    if (minRole === undefined) return;
    const tenantOf = route.config?.tenantOf;
    const guard: preHandlerHookHandler = (request, _reply, done) => {
      check(request, minRole, tenantOf).then(() => done(), done);
    };
    route.preHandler = [guard, ...routeHooks(route.preHandler)];
  });
}

/** A path parameter of a console route (`:tenantId`, or the record a `tenantOf` route names). */
function stringParam(request: FastifyRequest, name: string): string | undefined {
  const params: unknown = request.params;
  if (typeof params !== 'object' || params === null || !(name in params)) return undefined;
  const value: unknown = Reflect.get(params, name);
  return typeof value === 'string' ? value : undefined;
}

/** The verb context of a console tenant route: the tenant the guard checked, the database, the clock. */
export function consoleContext(
  request: FastifyRequest,
  services: Pick<Services, 'db' | 'clock'>,
): TenantContext {
  return { db: services.db, clock: services.clock, tenantId: consoleCaller(request).tenantId };
}

/** The console user calling and the tenant the guard checked their membership of. */
export function consoleCaller(request: FastifyRequest): { tenantId: string; userId: string } {
  const user = hostedUser(request.principal);
  if (user.tenantId === undefined) throw new NotFound('tenant');
  return { tenantId: user.tenantId, userId: user.userId };
}
