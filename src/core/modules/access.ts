import { type Principal, tenantPrincipal } from '../auth/principal.ts';
import type { Services } from '../context.ts';
import type { AppError } from '../http/errors.ts';
import { accessRefusal, type TenantAccess, tenantAccess } from './authorize.ts';
import type { ActionDefinition, ModuleManifest } from './manifest.ts';

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

/** The room an action's input names (`roomId`), if any: a session token limited to another is refused. */
export function roomOfInput(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null || !('roomId' in input)) return undefined;
  return typeof input.roomId === 'string' ? input.roomId : undefined;
}
