import { type Principal, tenantPrincipal } from '../auth/principal.ts';
import type { Services } from '../context.ts';
import type { AppError } from '../http/errors.ts';
import { accessRefusal, type TenantAccess, tenantAccess } from './authorize.ts';
import type { ActionDefinition, ModuleManifest } from './manifest.ts';
import type { ModuleRegistry } from './registry.ts';

/** Who asks for actions (or MCP tools), and what the check needs of their tenant. */
export interface ActionAudience {
  principal: Principal;
  tenant: TenantAccess;
}

export async function audienceFor(
  services: Pick<Services, 'db' | 'enablement'>,
  principal: Principal,
): Promise<ActionAudience> {
  const { tenantId } = tenantPrincipal(principal);
  return { principal, tenant: await tenantAccess(services, tenantId, true) };
}

/**
 * Why `audience` may not call `action` (on `roomId`, when the call names one), as the error it would get;
 * undefined when it may. The one rule of `accessRefusal`, asked with what the action declares.
 */
export function actionRefusal(
  module: ModuleManifest,
  action: ActionDefinition,
  audience: ActionAudience,
  roomId?: string,
): AppError | undefined {
  return accessRefusal(
    audience.principal,
    {
      module: module.name,
      scope: action.scope,
      credentials: action.credentials,
      workspaceTypes: action.workspaceTypes,
      name: action.name,
      roomId,
    },
    audience.tenant,
  );
}

/**
 * The room a call of `action` is about, as its REST route reads it: the input's `roomId` when the route's
 * path names the room (`:roomId`), else none (there a `roomId` is a filter, and the verb limits a
 * room-limited session to its room, as for the route). A session token limited to another room is refused.
 */
export function roomOfCall(
  registry: Pick<ModuleRegistry, 'routeOf'>,
  action: ActionDefinition,
  input: unknown,
): string | undefined {
  if (registry.routeOf(action)?.roomInPath !== true) return undefined;
  if (typeof input !== 'object' || input === null || !('roomId' in input)) return undefined;
  return typeof input.roomId === 'string' ? input.roomId : undefined;
}
