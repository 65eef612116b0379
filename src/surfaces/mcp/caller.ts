import { hasScope, type Principal } from '../../core/auth/principal.ts';
import type { Services } from '../../core/context.ts';
import { AppError, isAppError } from '../../core/http/errors.ts';
import { type ActionAudience, actionRefusal, audienceFor, roomOfCall } from '../../core/modules/access.ts';
import type { ActionDefinition, ModuleManifest } from '../../core/modules/manifest.ts';
import type { ModuleRegistry } from '../../core/modules/registry.ts';
import { isToolable } from './catalog.ts';
import { type ConfirmPolicy, needsConfirmation, readPolicy } from './policy.ts';

/** Server API keys carrying this scope may call tools that need a human, without one. */
export const UNATTENDED_SCOPE = 'mcp:unattended';

/** `run`: call it straight away. `confirm`: a human approves each call first. */
export type ToolMode = 'run' | 'confirm';

export interface CallableTool {
  module: ModuleManifest;
  action: ActionDefinition;
  mode: ToolMode;
}

export interface ToolAudience extends ActionAudience {
  policy: ConfirmPolicy;
}

/** Why an API key may not call `action` although everything else allows it: it needs a person. */
function needsPersonRefusal(action: ActionDefinition, policy: ConfirmPolicy): AppError {
  const rule =
    action.confirmation === 'always'
      ? `its module requires a person to approve each call of ${action.name}`
      : `this tenant's MCP confirmation policy (${policy}) requires a person to approve each call of ${action.name}`;
  return new AppError(
    'insufficient_scope',
    `${rule}, and an API key cannot ask one: call it with a session token, or with an API key that ` +
      `holds the scope ${UNATTENDED_SCOPE}`,
  );
}

/**
 * How `audience` may use a tool, or why it may not (the error a call gets; the tool is not listed): the
 * same refusals as `/v1/actions` (scope, session modules, module enabled, workspace type), then the
 * confirmation policy. A tool that needs a person is refused to callers who cannot ask one: API keys,
 * unless unattended. Every reason is about the caller's own credential and tenant.
 */
export function toolAccess(
  module: ModuleManifest,
  action: ActionDefinition,
  audience: ToolAudience,
): ToolMode | AppError {
  const refusal = actionRefusal(module, action, audience);
  if (refusal !== undefined) return refusal;
  if (!needsConfirmation(audience.policy, action)) return 'run';
  if (audience.principal.kind === 'session') return 'confirm';
  return hasScope(audience.principal, UNATTENDED_SCOPE) ? 'run' : needsPersonRefusal(action, audience.policy);
}

export function callableTools(registry: ModuleRegistry, audience: ToolAudience): CallableTool[] {
  return registry.allActions().flatMap(({ module, action }) => {
    if (!isToolable(action)) return [];
    const mode = toolAccess(module, action, audience);
    return isAppError(mode) ? [] : [{ module, action, mode }];
  });
}

/** The tools one request's caller may see and call, worked out once per request when first needed. */
export class McpCaller {
  private audience: Promise<ToolAudience> | undefined;

  constructor(
    private readonly services: Services,
    readonly principal: Principal,
    readonly tenantId: string,
  ) {}

  private toolAudience(): Promise<ToolAudience> {
    this.audience ??= Promise.all([
      audienceFor(this.services, this.principal),
      readPolicy(this.services.db, this.tenantId),
    ]).then(([audience, policy]) => ({ ...audience, policy: policy.confirm }));
    return this.audience;
  }

  async tools(): Promise<CallableTool[]> {
    // Read at call time, not at registration: the registry is the app's current one.
    return callableTools(this.services.registry, await this.toolAudience());
  }

  /**
   * The tool by name when this caller may use it, else why not; undefined when no module offers it. The
   * catalog is public (`/.well-known/mcp/manifest.json`), so saying why hides nothing.
   */
  async tool(name: string): Promise<CallableTool | AppError | undefined> {
    const entry = this.services.registry.action(name);
    if (entry === undefined || !isToolable(entry.action)) return undefined;
    const mode = toolAccess(entry.module, entry.action, await this.toolAudience());
    return isAppError(mode) ? mode : { ...entry, mode };
  }

  /** The one rule again, with the room the checked input names: a session token limited to another is refused. */
  async roomRefusal(tool: CallableTool, input: unknown): Promise<AppError | undefined> {
    return actionRefusal(
      tool.module,
      tool.action,
      await this.toolAudience(),
      roomOfCall(this.services.registry, tool.action, input),
    );
  }

  /** Whom a confirmation token is bound to: the actor of a session, else the API key. */
  get confirmationSubject(): string {
    const principal = this.principal;
    switch (principal.kind) {
      case 'session':
        return `actor:${principal.actor.id}`;
      case 'api_key':
        return `api_key:${principal.apiKeyId}`;
      case 'hosted_user':
        return `user:${principal.userId}`;
      default:
        return `${principal.kind}:unknown`;
    }
  }
}
