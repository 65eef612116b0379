import { hasScope, type Principal } from '../../core/auth/principal.ts';
import type { Services } from '../../core/context.ts';
import type { AppError } from '../../core/http/errors.ts';
import { type ActionAudience, actionRefusal, audienceFor, roomOfInput } from '../../core/modules/access.ts';
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

/**
 * How `audience` may use a tool, or undefined when the tool is not theirs at all: the same refusals as
 * `/v1/actions` (module enabled, session modules, scope, workspace type), then the confirmation policy.
 * A tool that needs a human is hidden from callers who cannot get one: API keys, unless unattended.
 */
export function toolModeFor(
  module: ModuleManifest,
  action: ActionDefinition,
  audience: ToolAudience,
): ToolMode | undefined {
  if (!isToolable(action) || actionRefusal(module, action, audience) !== undefined) return undefined;
  if (!needsConfirmation(audience.policy, action)) return 'run';
  if (audience.principal.kind === 'session') return 'confirm';
  return hasScope(audience.principal, UNATTENDED_SCOPE) ? 'run' : undefined;
}

export function callableTools(registry: ModuleRegistry, audience: ToolAudience): CallableTool[] {
  return registry.allActions().flatMap(({ module, action }) => {
    const mode = toolModeFor(module, action, audience);
    return mode === undefined ? [] : [{ module, action, mode }];
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

  /** The tool by name when this caller may use it; a hidden tool is as unknown as a missing one. */
  async tool(name: string): Promise<CallableTool | undefined> {
    const entry = this.services.registry.action(name);
    if (entry === undefined) return undefined;
    const mode = toolModeFor(entry.module, entry.action, await this.toolAudience());
    return mode === undefined ? undefined : { ...entry, mode };
  }

  /** The one rule again, with the room the checked input names: a session token limited to another is refused. */
  async roomRefusal(tool: CallableTool, input: unknown): Promise<AppError | undefined> {
    return actionRefusal(tool.module, tool.action, await this.toolAudience(), roomOfInput(input));
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
