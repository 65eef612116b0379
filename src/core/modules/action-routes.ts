import type { FastifyInstance, RouteOptions } from 'fastify';
import type { ActionCredential } from './manifest.ts';
import type { ModuleRegistry, RouteAccess } from './registry.ts';

export type { RouteAccess } from './registry.ts';

/** The credentials actions and MCP tools take; an action accepts those of them its route accepts. */
const ACTION_CREDENTIALS: readonly ActionCredential[] = ['api_key', 'session'];

function operationIdOf(route: RouteOptions): string | undefined {
  const schema: unknown = route.schema;
  if (typeof schema !== 'object' || schema === null || !('operationId' in schema)) return undefined;
  return typeof schema.operationId === 'string' ? schema.operationId : undefined;
}

/**
 * Why the actions differ from the REST routes they mirror, one line each (empty: they agree). An action
 * names its route by `operationId`; it must require the route's scope, belong to the route's module, and
 * accept exactly the route's credentials among those actions take. So an action can never let a session
 * token do what the route refuses it (or the reverse).
 */
export function actionRouteProblems(
  registry: Pick<ModuleRegistry, 'allActions'>,
  routes: ReadonlyMap<string, RouteAccess>,
): string[] {
  return registry.allActions().flatMap(({ module, action }) => {
    const route = routes.get(action.route);
    const at = `action ${action.name} (module ${module.name}) mirrors route ${action.route}`;
    if (route === undefined) return [`${at}, which no registered route has as operationId`];
    const problems: string[] = [];
    if (route.module !== module.name) problems.push(`${at} of module ${String(route.module)}`);
    if (route.scope !== action.scope)
      problems.push(`${at}, which requires ${String(route.scope)}, not ${action.scope}`);
    const expected = ACTION_CREDENTIALS.filter((kind) => route.credentials.includes(kind));
    const declared = [...action.credentials].sort();
    if (expected.join() !== declared.join())
      problems.push(
        `${at}, which accepts ${expected.join(', ')}; the action declares ${declared.join(', ')}`,
      );
    return problems;
  });
}

/**
 * Records every route's access in the registry as it registers, and stops the start when an action differs from the REST
 * route it mirrors. Installed before any route registers.
 */
export function checkActionRoutes(app: FastifyInstance, registry: ModuleRegistry): void {
  app.addHook('onRoute', (route) => {
    const operationId = operationIdOf(route);
    const auth = route.config?.auth;
    if (operationId === undefined || auth === undefined) return;
    registry.recordRoute(operationId, {
      module: route.config?.module,
      scope: auth.scope,
      credentials: auth.credentials,
      roomInPath: /(^|\/):roomId(\/|$)/.test(route.url),
    });
  });
  app.addHook('onReady', async () => {
    const problems = actionRouteProblems(registry, registry.routes);
    if (problems.length > 0)
      throw new Error(`actions differ from their REST routes:\n  ${problems.join('\n  ')}`);
  });
}
