import { actsInTenant, hasScope, type Principal, type PrincipalKind } from '../auth/principal.ts';
import { AppError, Forbidden, NotFound } from '../http/errors.ts';
import type { ServiceContext, Services } from '../services.ts';
import type { WorkspaceType } from '../tenancy/roles.ts';
import { getTenant } from '../tenancy/tenants.ts';

/** What an operation needs: asked the same way by REST routes, actions, MCP tools and realtime frames. */
export interface AccessRequest {
  /** The module the operation belongs to; platform operations name none. */
  module?: string | undefined;
  /** The scope the principal must hold (hosted users are governed by console roles instead). */
  scope?: string | undefined;
  /** The credential kinds the operation takes (actions: those of the REST route they mirror); default any. */
  credentials?: readonly PrincipalKind[] | undefined;
  /** The room the operation touches: a session token limited to another room is refused. */
  roomId?: string | undefined;
  /** The workspace types the operation is offered in (actions and tools); default every type. */
  workspaceTypes?: readonly WorkspaceType[] | undefined;
  /** How refusals name the operation, e.g. `create_room`; default "this route". */
  name?: string | undefined;
}

const KIND_NAMES: Record<PrincipalKind, string> = {
  api_key: 'a tenant API key',
  session: 'a session token',
  hosted_user: 'a hosted-auth JWT',
  product: 'a product key',
};

/** What the check needs to know of the tenant. */
export interface TenantAccess {
  isEnabled(module: string): boolean;
  /** Needed only for requests that name workspace types. */
  workspaceType?: WorkspaceType | undefined;
}

/** A 403 with its RFC 6750 challenge (`error="insufficient_scope"`, and the scope when one is missing). */
function refused(code: 'insufficient_scope' | 'forbidden', message: string, scope?: string): AppError {
  const scopePart = scope === undefined ? '' : `, scope="${scope}"`;
  return new AppError(code, message, {
    headers: {
      'www-authenticate': `Bearer realm="svc", error="insufficient_scope"${scopePart}, error_description="${message.replaceAll('"', "'")}"`,
    },
  });
}

/**
 * The one authorization rule, as the error the caller gets, or undefined when the operation may run:
 * the scope is held, a session token was minted for the module and reaches the room, the module is on for
 * the tenant, and the operation is offered in the tenant's workspace type.
 */
export function accessRefusal(
  principal: Principal,
  request: AccessRequest,
  tenant: TenantAccess,
): AppError | undefined {
  const { module, scope, roomId } = request;
  const name = request.name ?? 'this route';
  const credentials = request.credentials;
  // A console user acting in a tenant (X-SVC-Tenant) may call what an API key may, within its role's scopes.
  const acting = actsInTenant(principal);
  const kind = acting ? 'api_key' : principal.kind;
  if (credentials !== undefined && !credentials.includes(kind)) {
    return refused(
      'forbidden',
      `${name} does not accept ${KIND_NAMES[principal.kind]}, as its REST route does not; call it with ${credentials.map((k) => KIND_NAMES[k]).join(' or ')}`,
    );
  }
  // Console routes govern console users by role (`minRole`); acting in a tenant, their role's scopes count.
  if (scope !== undefined && (acting || principal.kind !== 'hosted_user') && !hasScope(principal, scope)) {
    return refused('insufficient_scope', `${name} requires the scope ${scope}`, scope);
  }
  if (principal.kind === 'session') {
    if (module !== undefined && !(principal.modules ?? []).includes(module)) {
      return refused('insufficient_scope', `this session token was not minted for the ${module} module`);
    }
    const limitedTo = principal.roomId;
    if (limitedTo !== undefined && roomId !== undefined && roomId !== limitedTo) {
      return refused('forbidden', `this session token is limited to room ${limitedTo}`);
    }
  }
  if (module !== undefined && !tenant.isEnabled(module)) {
    return new AppError('module_disabled', `the ${module} module is disabled for this tenant`);
  }
  const types = request.workspaceTypes;
  if (types !== undefined && tenant.workspaceType !== undefined && !types.includes(tenant.workspaceType)) {
    return new Forbidden(`${name} is not available in ${tenant.workspaceType} workspaces`);
  }
  return undefined;
}

/** What `accessRefusal` needs of a tenant, from the services' caches (the workspace type only if asked). */
export async function tenantAccess(
  services: Pick<Services, 'db' | 'enablement'>,
  tenantId: string,
  withWorkspaceType: boolean,
): Promise<TenantAccess> {
  const [states, tenant] = await Promise.all([
    services.enablement.states(tenantId),
    withWorkspaceType ? getTenant(services.db, tenantId) : undefined,
  ]);
  if (withWorkspaceType && tenant === undefined) throw new NotFound('tenant', tenantId);
  return {
    isEnabled: (module) => states.get(module)?.enabled === true,
    workspaceType: tenant?.workspaceType,
  };
}

/** Throws the refusal when `ctx.principal` may not do what `request` describes. */
export async function authorize(ctx: ServiceContext, request: AccessRequest): Promise<void> {
  const principal = ctx.principal;
  if (principal === undefined) throw new AppError('unauthorized', 'this operation needs a credential');
  const refusal = accessRefusal(
    principal,
    request,
    await tenantAccess(ctx, ctx.tenantId, request.workspaceTypes !== undefined),
  );
  if (refusal !== undefined) throw refusal;
}
