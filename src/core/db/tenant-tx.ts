import { inSpan } from '../ops/tracing/spans.ts';
import type { Database, Queryable, QueryResult } from './database.ts';

/**
 * Row-level security is the backstop for tenancy: tenant tables answer only rows whose `tenant_id` equals
 * `svc.tenant_id`, and only to the `svc_tenant` role, which owns nothing and cannot bypass RLS.
 * `svc_system` sees every tenant; it is for work no single tenant owns (credential lookup, workers).
 */
export const TENANT_ROLE = 'svc_tenant';
export const SYSTEM_ROLE = 'svc_system';

/** The attributes of the spans below (PGlite is PostgreSQL too). */
const AS_TENANT = { 'db.system.name': 'postgresql', 'svc.db.role': TENANT_ROLE };
const AS_SYSTEM = { 'db.system.name': 'postgresql', 'svc.db.role': SYSTEM_ROLE };

export interface TenantScope {
  tenantId: string;
}

/** Tenant ids are `ten_` plus base32; anything else never reaches SQL text. */
const SAFE_TENANT_ID = /^[A-Za-z0-9_]{1,64}$/;

/** The statement that makes a transaction the tenant's (simple protocol: the id is inlined, so checked). */
export function tenantSetup(tenantId: string): string {
  if (!SAFE_TENANT_ID.test(tenantId)) throw new Error(`not a tenant id: ${JSON.stringify(tenantId)}`);
  return `select set_config('role', '${TENANT_ROLE}', true), set_config('svc.tenant_id', '${tenantId}', true)`;
}

/**
 * `tenantSetup` for a whole session rather than one transaction: for a connection that runs one
 * tenant's statements without transactions around them until it is made another's (or `SESSION_RESET`).
 */
export function tenantSessionSetup(tenantId: string): string {
  if (!SAFE_TENANT_ID.test(tenantId)) throw new Error(`not a tenant id: ${JSON.stringify(tenantId)}`);
  return `select set_config('role', '${TENANT_ROLE}', false), set_config('svc.tenant_id', '${tenantId}', false)`;
}

/** Undoes `tenantSessionSetup`: the session's own role again, and no tenant. */
export const SESSION_RESET = `reset role; select set_config('svc.tenant_id', '', false)`;

/** One transaction, run as `svc_tenant` with the tenant set: every query inside sees one tenant only. */
export function tenantTx<T>(db: Database, scope: TenantScope, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  let setup: string;
  try {
    setup = tenantSetup(scope.tenantId);
  } catch (error) {
    return Promise.reject(error);
  }
  // Sent with BEGIN in one round trip. A span of the request's trace when tracing is on (on both databases).
  return inSpan('db.transaction', () => db.transaction(fn, { setup }), AS_TENANT);
}

/**
 * One read statement in the tenant, as `tenantTx` would run it but without BEGIN and COMMIT around it
 * (see `Database.tenantQuery`): for verbs whose read is a single statement.
 */
export function tenantRead<Row>(
  db: Database,
  scope: TenantScope,
  sql: string,
  params: readonly unknown[] = [],
): Promise<QueryResult<Row>> {
  if (!SAFE_TENANT_ID.test(scope.tenantId)) {
    return Promise.reject(new Error(`tenantRead: not a tenant id: ${JSON.stringify(scope.tenantId)}`));
  }
  return inSpan('db.statement', () => db.tenantQuery<Row>(scope.tenantId, sql, params), AS_TENANT);
}

export interface SystemTxOptions {
  /**
   * Commit without waiting for the WAL flush (`synchronous_commit = off`): a database crash may lose the
   * last fraction of a second of such commits, never corrupt anything. Only for bookkeeping that is safe to
   * redo, such as a webhook worker's leases and at-least-once delivery records.
   */
  relaxedDurability?: boolean;
}

/** One transaction across tenants, as `svc_system`. Use only where no tenant is known yet or none applies. */
export function systemTx<T>(
  db: Database,
  fn: (tx: Queryable) => Promise<T>,
  options: SystemTxOptions = {},
): Promise<T> {
  const setup =
    options.relaxedDurability === true
      ? `select set_config('role', '${SYSTEM_ROLE}', true), set_config('synchronous_commit', 'off', true)`
      : `select set_config('role', '${SYSTEM_ROLE}', true)`;
  return inSpan('db.transaction', () => db.transaction(fn, { setup }), AS_SYSTEM);
}

/**
 * One read statement across tenants, as `svc_system`, without BEGIN and COMMIT around it (see
 * `Database.systemQuery`): for reads no tenant owns that are a single statement, such as polls.
 */
export function systemRead<Row>(
  db: Database,
  sql: string,
  params: readonly unknown[] = [],
): Promise<QueryResult<Row>> {
  return inSpan('db.statement', () => db.systemQuery<Row>(sql, params), AS_SYSTEM);
}
