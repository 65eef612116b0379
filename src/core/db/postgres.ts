import { createHash } from 'node:crypto';
import pg from 'pg';
import { ServiceUnavailable } from '../http/errors.ts';
import type { Database, Queryable, QueryOptions, QueryResult } from './database.ts';
import { SYSTEM_ROLE, TENANT_ROLE } from './tenant-tx.ts';

// int8 (count(*), sums of minor units) as JS numbers: the service keeps values below 2^53.
pg.types.setTypeParser(20, (value) => Number(value));

/** `host:port` of a connection string, never its user or password: what an operator needs to check. */
export function databaseAddress(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    return `${url.hostname || 'localhost'}:${url.port || '5432'}`;
  } catch {
    return 'an unparsable address';
  }
}

/**
 * A connection that cannot be made (server down, refused, timed out) is an outage, not a bug: 503, so a
 * request fails fast with a code clients can retry on instead of a 500.
 */
async function connectOrUnavailable(pool: pg.Pool): Promise<pg.PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw new ServiceUnavailable('the database does not answer', { cause: error });
  }
}

/** One statement on a pooled connection; a connection that cannot be had is a 503 (see above). */
async function onPool<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await connectOrUnavailable(pool);
  let failure: Error | undefined;
  try {
    return await fn(client);
  } catch (error) {
    // Like pool.query: a connection that broke (no SQLSTATE) is discarded, not reused.
    if ((error as { code?: unknown }).code === undefined) failure = error as Error;
    throw error;
  } finally {
    client.release(failure);
  }
}

function causeOf(error: unknown): string {
  const cause = error instanceof ServiceUnavailable && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}

function wrap(client: pg.Pool | pg.PoolClient): Queryable {
  const run = (sql: string, params?: unknown[], options?: QueryOptions) => {
    const query = (c: pg.PoolClient) =>
      options?.prepared === true
        ? c.query({ name: statementName(sql), text: sql, values: params ?? [] })
        : c.query(sql, params);
    return client instanceof pg.Pool ? onPool(client, query) : query(client);
  };
  return {
    async query<Row>(
      sql: string,
      params: readonly unknown[] = [],
      options?: QueryOptions,
    ): Promise<QueryResult<Row>> {
      const result = await run(sql, params as unknown[], options);
      return { rows: result.rows as Row[], rowCount: result.rowCount ?? result.rows.length };
    },
    async exec(sql: string): Promise<void> {
      await run(sql);
    },
  };
}

/**
 * Reads run as named prepared statements: each connection parses and plans a read once, then only binds
 * and executes it. Names come from the statement's text, so one text always has one name; the texts are
 * the code's own (values are always bound), so there are few of them.
 */
const statementNames = new Map<string, string>();
function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (name === undefined) {
    name = `svc_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    if (statementNames.size >= 1_000) statementNames.clear();
    statementNames.set(sql, name);
  }
  return name;
}

/** One read on `client` as a named prepared statement (see statementName). */
async function preparedRead<Row>(
  client: pg.PoolClient,
  sql: string,
  params: readonly unknown[],
): Promise<QueryResult<Row>> {
  const result = await client.query({ name: statementName(sql), text: sql, values: params as unknown[] });
  return { rows: result.rows as Row[], rowCount: result.rowCount ?? result.rows.length };
}

/** Whose session a read connection holds when it serves reads across tenants (never a tenant id). */
const SYSTEM_SESSION = '(system)';

/**
 * Connections that only ever serve single-statement reads, each outside a transaction: a tenant's (as
 * `svc_tenant` with `svc.tenant_id` set) or across tenants (as `svc_system`, no tenant). Each connection
 * remembers whose session it holds, so a read for the same tenant (or the system again) is one round
 * trip; a switch sets both the role and the tenant in one statement, whatever the connection held. A new
 * connection starts as `svc_tenant` with no tenant (sees nothing). A connection that errs is discarded,
 * and with it what it remembered.
 */
function readPool(connectionString: string, max: number) {
  const pool = new pg.Pool({
    connectionString,
    max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
  });
  pool.on('error', () => {});
  // Queued before any read on the new connection.
  pool.on('connect', (client) => {
    client.query(`set role ${TENANT_ROLE}`).catch(() => {});
  });
  const sessionOf = new WeakMap<pg.PoolClient, string>();
  return {
    /** `session`: a checked tenant id, or SYSTEM_SESSION. */
    async query<Row>(
      session: string,
      sql: string,
      params: readonly unknown[] = [],
    ): Promise<QueryResult<Row>> {
      const client = await connectOrUnavailable(pool);
      let broken = false;
      try {
        if (sessionOf.get(client) !== session) {
          sessionOf.delete(client);
          const system = session === SYSTEM_SESSION;
          await client.query(`select set_config('role', $1, false), set_config('svc.tenant_id', $2, false)`, [
            system ? SYSTEM_ROLE : TENANT_ROLE,
            system ? '' : session,
          ]);
          sessionOf.set(client, session);
        }
        return await preparedRead<Row>(client, sql, params);
      } catch (error) {
        broken = true;
        throw error;
      } finally {
        client.release(broken);
      }
    },
    pool,
    close: () => pool.end(),
  };
}

export async function openPostgres(
  connectionString: string,
  options: { max?: number; systemRole?: boolean } = {},
): Promise<Database> {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 20,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
  });
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  // Queued before any other statement on the new connection (see Database.dedicated).
  if (options.systemRole === true) {
    pool.on('connect', (client) => {
      client.query(`set role ${SYSTEM_ROLE}`).catch(() => {});
    });
  }
  const root = wrap(pool);
  try {
    await root.query('select 1');
  } catch (error) {
    await pool.end().catch(() => {});
    throw new Error(
      `DATABASE_URL: cannot use PostgreSQL at ${databaseAddress(connectionString)}: ${causeOf(error)}`,
      { cause: error },
    );
  }
  const reads = readPool(connectionString, Math.max(2, Math.ceil((options.max ?? 20) / 2)));

  async function onClient<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await connectOrUnavailable(pool);
    let broken = false;
    try {
      return await fn(client);
    } catch (error) {
      broken = (error as { code?: string }).code === undefined;
      throw error;
    } finally {
      client.release(broken);
    }
  }

  let closed = false;
  return {
    kind: 'postgres',
    query: root.query,
    exec: root.exec,
    transaction: (fn, options) =>
      onClient(async (client) => {
        // One round trip: a simple-protocol query may carry several statements.
        await client.query(options?.setup === undefined ? 'BEGIN' : `BEGIN; ${options.setup}`);
        try {
          const result = await fn(wrap(client));
          await client.query('COMMIT');
          return result;
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {});
          throw error;
        }
      }),
    tenantQuery: (tenantId, sql, params) =>
      tenantId === SYSTEM_SESSION
        ? Promise.reject(new Error(`not a tenant id: ${tenantId}`))
        : reads.query(tenantId, sql, params),
    systemQuery: (sql, params) => reads.query(SYSTEM_SESSION, sql, params),
    poolStats: () => ({
      total: pool.totalCount + reads.pool.totalCount,
      idle: pool.idleCount + reads.pool.idleCount,
      waiting: pool.waitingCount + reads.pool.waitingCount,
    }),
    dedicated: (dedicatedOptions) => openPostgres(connectionString, dedicatedOptions),
    withAdvisoryLock: (key, fn) =>
      onClient(async (client) => {
        await client.query('select pg_advisory_lock($1)', [key]);
        try {
          return await fn(wrap(client));
        } finally {
          await client.query('select pg_advisory_unlock($1)', [key]).catch(() => {});
        }
      }),
    tryWithAdvisoryLock: async (key, fn) => {
      const client = await pool.connect();
      let unlocked = false;
      try {
        const { rows } = await client.query<{ locked: boolean }>(
          'select pg_try_advisory_lock($1) as locked',
          [key],
        );
        if (rows[0]?.locked !== true) {
          unlocked = true;
          return { acquired: false };
        }
        try {
          return { acquired: true, result: await fn() };
        } finally {
          await client.query('select pg_advisory_unlock($1)', [key]).then(
            () => {
              unlocked = true;
            },
            () => {},
          );
        }
      } finally {
        // A session lock lives as long as its connection: one that could not be unlocked is closed.
        client.release(!unlocked);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([pool.end(), reads.close()]);
    },
  };
}
