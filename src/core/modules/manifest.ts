import type { FastifyInstance } from 'fastify';
import type { TSchema } from 'typebox';
import { checkIdPrefixes } from '../ids.ts';
import type { EncryptedColumn } from '../secrets/stored-secrets.ts';
import type { ServiceContext, Services } from '../services.ts';
import type { WorkspaceType } from '../tenancy/roles.ts';
import type { ModuleHooks, ModuleHost } from './hooks.ts';

export type ActionAccess = 'read' | 'write' | 'destructive';
export type ConfirmationHint = 'never' | 'destructive' | 'always';
/** The credentials `/v1/actions` and MCP take: an action accepts those of them its REST route accepts. */
export type ActionCredential = 'api_key' | 'session';

/** One operation of a module, callable as REST route, `/v1/actions/:name` and MCP tool alike. */
export interface ActionDefinition {
  name: string;
  title: string;
  description: string;
  input: TSchema;
  output: TSchema;
  scope: string;
  /**
   * The `operationId` of the REST route this action mirrors: the action requires the route's scope and
   * accepts the route's credentials (of those actions take); the app does not start when they differ
   * (action-routes.ts). What the route allows each caller beyond that, its verb decides for both.
   */
  route: string;
  /** Who may call it: `session` only when its REST route takes session tokens (end users) too. */
  credentials: readonly ActionCredential[];
  access: ActionAccess;
  confirmation: ConfirmationHint;
  workspaceTypes: readonly WorkspaceType[];
  run(ctx: ServiceContext, input: unknown): Promise<unknown>;
}

/**
 * A module is declared once, here. Core derives everything else from the list of manifests in `app.ts`:
 * module names, scopes, what a session token may carry, enablement defaults, migrations, the catalog,
 * actions, MCP tools, OpenAPI (through the routes), outbox writers, subscribers, workers and realtime frames.
 */
export interface ModuleManifest {
  /** Lower-case name; also the prefix of its scopes (`<name>:read`) and the key of its tenant config. */
  name: string;
  title: string;
  description: string;
  version: string;
  /** Every scope the module's routes and actions require. */
  scopes: readonly string[];
  /**
   * What a session token minted for this module (`POST /v1/runtime/connect`) carries: end users read and
   * take part, they never administer. Empty when sessions get nothing of this module.
   */
  sessionScopes: readonly string[];
  eventTypes: readonly string[];
  /** JSON schema of the tenant's configuration; every property has a default. */
  configSchema: TSchema;
  /**
   * The kinds of ids the module mints and their prefixes (`defineIds(...).prefixes`, from the module's
   * `ids.ts`): no two modules, and no module and core, share a kind or a prefix.
   */
  idPrefixes?: Readonly<Record<string, string>>;
  /** Whether a new tenant starts with the module on (default true). */
  enabledByDefault?: boolean;
  actions: readonly ActionDefinition[];
  routes?: (app: FastifyInstance, services: Services) => Promise<void>;
  /** The module's own SQL migrations: `new URL('./migrations/', import.meta.url)`. */
  migrations?: URL;
  /**
   * Per-app hooks, built once when an app is built: an outbox writer (rows added in the statement that
   * records an event), a subscriber to committed events, a background worker.
   */
  hooks?: (host: ModuleHost) => ModuleHooks;
  /**
   * Columns where the module stores secrets encrypted with `services.encryption`: every start encrypts
   * values still plain and moves values under an old key to the current one.
   */
  encryptedColumns?: readonly EncryptedColumn[];
  /** Rows of the module's own tables that are bookkeeping, not records: deleted once old enough. */
  retention?: readonly RetentionRule[];
}

/**
 * Rows of one tenant table that may be deleted once they are old enough. Core's retention worker deletes
 * them in bounded batches, on one instance at a time; `SVC_RETENTION=<name>=<age>,...` overrides the
 * default age (see docs/operations.md).
 */
export interface RetentionRule {
  /** Lower-case and unique across the service; the key in `SVC_RETENTION` and in logs, e.g. `chat_changes`. */
  name: string;
  /** What the rows are and what their deletion means, for operators. */
  description: string;
  /** The table (it has a `tenant_id` column, as every tenant table does). */
  table: string;
  /** The `timestamptz` column a row's age is counted from; rows where it is null are kept. */
  timeColumn: string;
  /** How long after `timeColumn` a row is deleted by default (ms). */
  defaultAgeMs: number;
  /** A further SQL condition over the table's columns that a row must meet, e.g. `state <> 'pending'`. */
  where?: string;
}

export const ALL_WORKSPACES: readonly WorkspaceType[] = ['commerce', 'community', 'sandbox'];

/** Builds an action with the typed input its verb expects. */
export function defineAction<I>(
  definition: Omit<ActionDefinition, 'run'> & { run(ctx: ServiceContext, input: I): Promise<unknown> },
): ActionDefinition {
  return definition as ActionDefinition;
}

/** Checks a manifest against the rules core relies on; throws naming the first broken one. */
export function checkManifest(manifest: ModuleManifest): void {
  const { name } = manifest;
  if (!/^[a-z][a-z0-9_]{1,30}$/.test(name))
    throw new Error(`module name ${JSON.stringify(name)} is not valid`);
  const declared = new Set(manifest.scopes);
  for (const scope of manifest.sessionScopes) {
    if (!declared.has(scope))
      throw new Error(`module ${name}: session scope ${scope} is not one of its scopes`);
  }
  for (const rule of manifest.retention ?? []) checkRetentionRule(rule, `module ${name}`);
  checkIdPrefixes(`module ${name}`, manifest.idPrefixes ?? {});
  for (const action of manifest.actions) {
    if (!declared.has(action.scope)) {
      throw new Error(
        `module ${name}: action ${action.name} requires ${action.scope}, which it does not declare`,
      );
    }
  }
}

const SQL_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** A retention rule's names end up in SQL text: they must be plain identifiers. */
export function checkRetentionRule(rule: RetentionRule, owner: string): void {
  if (!/^[a-z][a-z0-9_]{1,62}$/.test(rule.name))
    throw new Error(`${owner}: retention rule name ${JSON.stringify(rule.name)} is not valid`);
  if (!SQL_NAME.test(rule.table) || !SQL_NAME.test(rule.timeColumn))
    throw new Error(
      `${owner}: retention rule ${rule.name} names a table or column that is not an identifier`,
    );
  if (!Number.isSafeInteger(rule.defaultAgeMs) || rule.defaultAgeMs <= 0)
    throw new Error(`${owner}: retention rule ${rule.name} needs a positive defaultAgeMs`);
}
