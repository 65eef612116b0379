import fs from 'node:fs';
import path from 'node:path';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { Database, Queryable, QueryResult } from './database.ts';
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

/** Embedded PostgreSQL. `dataDir` undefined = in memory (tests). */
export async function openPglite(dataDir: string | undefined): Promise<Database> {
  let release = () => {};
  let pg: PGlite;
  if (dataDir === undefined) {
    pg = await PGlite.create('memory://');
  } else {
    fs.mkdirSync(dataDir, { recursive: true });
    release = acquireDirLock(dataDir);
    try {
      pg = await PGlite.create(path.join(dataDir, 'pgdata'));
    } catch (error) {
      release();
      throw error;
    }
  }
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
