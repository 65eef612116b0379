/** What the rest of the service sees of a database: PGlite and node-postgres both fit behind it. */
export interface QueryResult<Row> {
  rows: Row[];
  rowCount: number;
}

/**
 * `prepared`: the statement's text is fixed (its values are all bound, none written into it), so on
 * PostgreSQL the connection parses and plans it once, as a named prepared statement, and then only binds
 * and runs it. Only for texts that are few: each one stays prepared on every connection that ran it.
 * PGlite ignores it.
 */
export interface QueryOptions {
  prepared?: boolean;
}

export interface Queryable {
  query<Row = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<QueryResult<Row>>;
  /** Runs one or more statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface TransactionOptions {
  setup?: string;
}

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /**
   * BEGIN; setup; fn; COMMIT — or ROLLBACK when fn throws. `setup` is parameterless SQL sent in the same
   * round trip as BEGIN (on PostgreSQL), e.g. the role and settings the transaction runs with.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * One statement as role `svc_tenant` with `svc.tenant_id` set to `tenantId` (row-level security sees
   * that tenant only), outside an explicit transaction: on PostgreSQL one round trip on a connection that
   * served the same tenant last (two otherwise), instead of BEGIN, the statement and COMMIT. For reads
   * that are one statement; `tenantId` must be a checked tenant id (see `tenantTx`).
   */
  tenantQuery<Row = Record<string, unknown>>(
    tenantId: string,
    sql: string,
    params?: readonly unknown[],
  ): Promise<QueryResult<Row>>;
  /**
   * One read statement across tenants, as `svc_system`, outside an explicit transaction: one round trip
   * instead of BEGIN, the role, the statement and COMMIT, for reads no tenant owns (the polls of
   * background workers, credential look-ups). On PostgreSQL on the connections of `tenantQuery`, whose
   * session is made the system's (role `svc_system`, no tenant) when it was a tenant's; on PGlite as its
   * own user, a superuser, which sees every tenant too.
   */
  systemQuery<Row = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
  ): Promise<QueryResult<Row>>;
  /**
   * A separate set of at most `max` connections for a background worker, so request load cannot starve
   * it of connections (and it cannot starve requests). Close it when the worker stops. On PGlite, with its
   * one in-process connection, this is the same database and closing it does nothing. `systemRole`: on
   * PostgreSQL each connection runs as `svc_system` for its whole life, so one statement outside a
   * transaction (`query`) is one round trip as that role; PGlite ignores it.
   */
  dedicated(options: { max: number; systemRole?: boolean }): Promise<Database>;
  /** Runs fn on one connection while holding a cluster-wide advisory lock (no-op lock on PGlite). */
  withAdvisoryLock<T>(key: number, fn: (conn: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs fn while holding a cluster-wide advisory lock, unless another session (another instance) holds
   * it: then fn does not run and the answer is `{ acquired: false }` at once. On PGlite, one process, the
   * lock is held within this database object. fn may use any connection; the lock is held on its own.
   */
  tryWithAdvisoryLock<T>(key: number, fn: () => Promise<T>): Promise<LockAttempt<T>>;
  /** Its pools' connections now: PostgreSQL's; undefined on PGlite (one in-process connection). */
  poolStats?(): PoolStats | undefined;
  /**
   * PGlite's thread's heap collected as V8 does when memory is low, between two statements (see
   * core/ops/idle-memory.ts); answers the heap's size before and after, undefined on PostgreSQL.
   */
  releaseMemory?(): Promise<{ before: number; after: number } | undefined>;
  close(): Promise<void>;
}

/** Connections of a database's pools (the workers' dedicated pools not counted). */
export interface PoolStats {
  total: number;
  idle: number;
  /** Callers waiting for a connection. */
  waiting: number;
}

export type LockAttempt<T> = { acquired: true; result: T } | { acquired: false };

/** SQLSTATE codes the service reacts to. */
export const PG_ERROR = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  checkViolation: '23514',
  insufficientPrivilege: '42501',
} as const;

export function pgErrorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

/**
 * A `timestamptz` column as the wire shows time (ISO 8601, UTC, milliseconds: what `toISOString` gives),
 * formatted by the database, so hot reads skip parsing it into a Date and formatting it back.
 */
export function isoTime(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
