import type { FastifyInstance } from 'fastify';
import type { TSchema } from 'typebox';
import type { ModuleName } from '../auth/scopes.ts';
import type { ServiceContext, Services } from '../context.ts';
import type { WorkspaceType } from '../tenancy/roles.ts';

export type ActionAccess = 'read' | 'write' | 'destructive';
export type ConfirmationHint = 'never' | 'destructive' | 'always';

/** One operation of a module, callable as REST route, `/v1/actions/:name` and MCP tool alike. */
export interface ActionDefinition {
  name: string;
  title: string;
  description: string;
  input: TSchema;
  output: TSchema;
  scope: string;
  access: ActionAccess;
  confirmation: ConfirmationHint;
  workspaceTypes: readonly WorkspaceType[];
  run(ctx: ServiceContext, input: unknown): Promise<unknown>;
}

/** A module is declared once, here; the catalog, guards, actions, MCP tools and OpenAPI derive from it. */
export interface ModuleManifest {
  name: ModuleName;
  title: string;
  description: string;
  version: string;
  scopes: readonly string[];
  eventTypes: readonly string[];
  /** JSON schema of the tenant's configuration; every property has a default. */
  configSchema: TSchema;
  actions: readonly ActionDefinition[];
  routes?: (app: FastifyInstance, services: Services) => Promise<void>;
}

export const ALL_WORKSPACES: readonly WorkspaceType[] = ['commerce', 'community', 'sandbox'];

/** Builds an action with the typed input its verb expects. */
export function defineAction<I>(
  definition: Omit<ActionDefinition, 'run'> & { run(ctx: ServiceContext, input: I): Promise<unknown> },
): ActionDefinition {
  return definition as ActionDefinition;
}
