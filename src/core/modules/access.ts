import { hasScope, type Principal } from '../auth/principal.ts';
import { AppError } from '../http/errors.ts';
import type { WorkspaceType } from '../tenancy/roles.ts';
import type { ActionDefinition, ModuleManifest } from './manifest.ts';

export interface ActionAudience {
  principal: Principal;
  enabledModules: ReadonlySet<string>;
  workspaceType: WorkspaceType;
}

/** Why `principal` may not call `action` right now, as the error it would get; undefined when it may. */
export function actionRefusal(
  module: ModuleManifest,
  action: ActionDefinition,
  audience: ActionAudience,
): AppError | undefined {
  const { principal } = audience;
  if (!audience.enabledModules.has(module.name)) {
    return new AppError('module_disabled', `the ${module.name} module is disabled for this tenant`);
  }
  if (principal.kind === 'session' && !(principal.modules ?? []).includes(module.name)) {
    return new AppError(
      'insufficient_scope',
      `this session token was not minted for the ${module.name} module`,
    );
  }
  if (!hasScope(principal, action.scope)) {
    return new AppError('insufficient_scope', `${action.name} requires the scope ${action.scope}`);
  }
  if (!action.workspaceTypes.includes(audience.workspaceType)) {
    return new AppError(
      'forbidden',
      `${action.name} is not available in ${audience.workspaceType} workspaces`,
    );
  }
  return undefined;
}
