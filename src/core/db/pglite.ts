import fs from 'node:fs';
import path from 'node:path';
import { acquireDirLock } from './data-dir-lock.ts';
import type { Database } from './database.ts';
import { type PgliteThread, startPgliteThread } from './pglite-client.ts';
import {
  isDataDir,
  readTemplateImage,
  seedFromTemplate,
  templateDir,
  templateImage,
  writeTemplateImage,
} from './pglite-template.ts';
import { SESSION_RESET, tenantSessionSetup } from './tenant-tx.ts';

/**
 * Added to PGlite's own start parameters. PostgreSQL's default of 128 MB shared buffers is allocated and
 * touched in the WebAssembly heap at start, so it was resident memory of every embedded instance whether
 * or not it held data. 4 MB holds 512 pages, more than a development database's hot set; pages beyond
 * it are read back from the files (through the OS page cache). 16 MB cost an idle instance ~18 MiB more
 * RSS than 8 MB, and 8 MB ~4 MiB more than 4 MB; bench:rooms and random reads of 4-8 MB tables ran alike
 * with 4 and 8 MB.
 *
 * PGlite is one backend in single-user mode, but PostgreSQL still sizes its shared lock table, process
 * slots and predicate-lock pools for `max_connections` (100) plus WAL senders (10): 16 MB of shared memory
 * where 12 MB serve. 10 connections and no WAL senders or replication slots: ~3.5 MiB less RSS. The lock
 * table then holds what ~1,300 `CREATE TABLE ... PRIMARY KEY` take in one transaction (was ~4,800); past
 * that a statement fails with `out of shared memory`. Applies at each start: nothing is written to the
 * data directory.
 */
const THREAD_OPTIONS = {
  startParams: [
    ['-c', 'shared_buffers=4MB'],
    ['-c', 'max_connections=10'],
    ['-c', 'max_wal_senders=0'],
    ['-c', 'max_replication_slots=0'],
  ].flat(),
  sessionReset: SESSION_RESET,
};

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

/**
 * Embedded PostgreSQL, on its own thread (see pglite-client.ts). `dataDir` undefined = in memory (tests),
 * started from the template's image when a template is given (see `templateImage`). `template` may be
 * given as a function: it is then called only when a new database is made.
 */
export async function openPglite(
  dataDir: string | undefined,
  templateOf?: PgliteTemplate | (() => Promise<PgliteTemplate>),
  progress: (message: string) => void = () => {},
): Promise<Database> {
  if (dataDir === undefined) return openInMemory(templateOf);
  fs.mkdirSync(dataDir, { recursive: true });
  const lock = await acquireDirLock(dataDir);
  const release = () => lock.release();
  try {
    const pgdata = path.join(dataDir, 'pgdata');
    if (!isDataDir(pgdata)) {
      const template = typeof templateOf === 'function' ? await templateOf() : templateOf;
      const source = templateDir(template?.key ?? 'initdb', template?.cacheRoot);
      progress(
        isDataDir(source)
          ? 'new data directory: copying the prepared database into it'
          : 'new data directory, the first on this machine for this version: preparing the database ' +
              'template (initdb and the migrations, once; this takes a while)',
      );
      await seedFromTemplate(pgdata, source, async (dir) => {
        const db = databaseOf(await startPgliteThread(dir, THREAD_OPTIONS));
        try {
          await template?.prepare(db);
        } finally {
          await db.close();
        }
      });
    }
    return databaseOf(await startPgliteThread(pgdata, THREAD_OPTIONS), release);
  } catch (error) {
    await release();
    throw error;
  }
}

async function openInMemory(
  templateOf: PgliteTemplate | (() => Promise<PgliteTemplate>) | undefined,
): Promise<Database> {
  if (templateOf === undefined) return databaseOf(await startPgliteThread('memory://', THREAD_OPTIONS));
  const template = typeof templateOf === 'function' ? await templateOf() : templateOf;
  const file = templateImage(template.key, template.cacheRoot);
  const image = readTemplateImage(file);
  if (image !== undefined) {
    const loaded = await startPgliteThread('memory://', { ...THREAD_OPTIONS, image }).catch(() => undefined);
    if (loaded !== undefined) return databaseOf(loaded);
    // An image PGlite cannot start from (another PGlite build wrote it): made again below.
  }
  // The first in-memory database of this template: prepared as before, and its image kept for the next.
  const thread = await startPgliteThread('memory://', THREAD_OPTIONS);
  const db = databaseOf(thread);
  try {
    await template.prepare(db);
    writeTemplateImage(file, await thread.dump());
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

function databaseOf(pg: PgliteThread, release: () => Promise<void> = async () => {}): Database {
  let closed = false;
  const heldLocks = new Set<number>();
  const db: Database = {
    kind: 'pglite',
    query: pg.query,
    exec: pg.exec,
    transaction: (fn, options) => pg.transaction(fn, options?.setup),
    // One statement with no transaction around it, on a session made the tenant's (see pglite-host.js).
    tenantQuery: async (tenantId, sql, params = []) =>
      pg.tenantQuery({ id: tenantId, setup: tenantSessionSetup(tenantId) }, sql, params),
    // Outside transactions the one session is its superuser's (pglite-host.js undoes a tenant's first).
    systemQuery: pg.query,
    withAdvisoryLock: (_key, fn) => fn(pg),
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
    releaseMemory: () => pg.releaseMemory(),
    async close() {
      if (closed) return;
      closed = true;
      try {
        await pg.close();
      } finally {
        await release();
      }
    },
  };
  return db;
}
