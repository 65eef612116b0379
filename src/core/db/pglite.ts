import fs from 'node:fs';
import path from 'node:path';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { Database, Queryable, QueryResult } from './database.ts';
import { isDataDir, seedFromTemplate, templateDir } from './pglite-template.ts';
import { tenantSetup } from './tenant-tx.ts';

function wrap(target: PGlite | Transaction): Queryable {
  return {
    async query<Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<Row>> {
      const result = await target.query<Row>(sql, params as unknown[]);
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
    },
    async exec(sql: string): Promise<void> {
      await target.exec(sql);
    },
  };
}

/** One data directory belongs to one process: a second process would corrupt it. */
function acquireDirLock(dataDir: string): () => void {
  const lockPath = path.join(dataDir, 'pglite.pid');
  try {
    const holder = Number(fs.readFileSync(lockPath, 'utf8'));
    if (Number.isInteger(holder) && holder !== process.pid && processAlive(holder)) {
      throw new Error(
        `the embedded database in ${dataDir} is in use by process ${holder}; stop it or set SVC_DATA_DIR to another folder`,
      );
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  fs.writeFileSync(lockPath, String(process.pid));
  return () => fs.rmSync(lockPath, { force: true });
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * PostgreSQL's own default of 128 MB shared buffers is allocated and touched in the WebAssembly heap at
 * start, so it was resident memory of every embedded instance whether or not it held data. 16 MB holds
 * 2,048 pages, far more than a development database's hot set; pages beyond it are read back from the
 * files (through the OS page cache). Applies at each start: nothing is written to the data directory.
 */
const START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

/**
 * What a new data directory starts as (see pglite-template.ts): `prepare` runs once on a fresh database
 * to make the template (e.g. applies the migrations), and `key` names what it did, so another set of
 * migrations gets another template.
 */
export interface PgliteTemplate {
  key: string;
  prepare(db: Database): Promise<void>;
  /** Where templates are kept (default the package's `node_modules/.cache/svc`); tests use their own. */
  cacheRoot?: string;
}

/** Embedded PostgreSQL. `dataDir` undefined = in memory (tests). */
export async function openPglite(dataDir: string | undefined, template?: PgliteTemplate): Promise<Database> {
  if (dataDir === undefined)
    return databaseOf(await PGlite.create('memory://', { startParams: START_PARAMS }));
  fs.mkdirSync(dataDir, { recursive: true });
  const release = acquireDirLock(dataDir);
  try {
    const pgdata = path.join(dataDir, 'pgdata');
    if (!isDataDir(pgdata)) {
      await seedFromTemplate(
        pgdata,
        templateDir(template?.key ?? 'initdb', template?.cacheRoot),
        async (dir) => {
          const db = databaseOf(await PGlite.create(dir, { startParams: START_PARAMS }));
          try {
            await template?.prepare(db);
          } finally {
            await db.close();
          }
        },
      );
    }
    return databaseOf(await PGlite.create(pgdata, { startParams: START_PARAMS }), release);
  } catch (error) {
    release();
    throw error;
  }
}

function databaseOf(pg: PGlite, release: () => void = () => {}): Database {
  const root = wrap(pg);
  let closed = false;
  const heldLocks = new Set<number>();
  const db: Database = {
    kind: 'pglite',
    query: root.query,
    exec: root.exec,
    transaction: (fn, options) =>
      pg.transaction(async (tx) => {
        if (options?.setup !== undefined) await tx.exec(options.setup);
        return fn(wrap(tx));
      }),
    // One in-process connection: a read is its own short transaction (no round trips to save).
    tenantQuery: (tenantId, sql, params) =>
      pg.transaction(async (tx) => {
        await tx.exec(tenantSetup(tenantId));
        return wrap(tx).query(sql, params);
      }),
    withAdvisoryLock: (_key, fn) => fn(root),
    tryWithAdvisoryLock: async (key, fn) => {
      if (heldLocks.has(key)) return { acquired: false };
      heldLocks.add(key);
      try {
        return { acquired: true, result: await fn() };
      } finally {
        heldLocks.delete(key);
      }
    },
    dedicated: async () => ({ ...db, close: async () => {} }),
    async close() {
      if (closed) return;
      closed = true;
      await pg.close();
      release();
    },
  };
  return db;
}
