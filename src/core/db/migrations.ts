import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database, Queryable } from './database.ts';

/**
 * SQL migrations, one file per change, applied in file-name order, the same for PGlite and PostgreSQL.
 * Core files live in `migrations/`; a module keeps its own folder, named by its manifest's `migrations`.
 * Names start with a 4-digit sequence shared by all folders (`0007_rooms.sql`).
 */
export interface Migration {
  id: string;
  sql: string;
  checksum: string;
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const MIGRATION_LOCK_KEY = 0x5_17c_0001;
const NAME = /^\d{4}_[a-z0-9_]+\.sql$/;

/** The core folder, then each module's own (its manifest's `migrations`), in the order given. */
export function migrationFolders(
  modules: readonly { migrations?: URL | undefined }[],
  root: string = ROOT,
): string[] {
  const moduleFolders = modules.flatMap((m) =>
    m.migrations === undefined ? [] : [fileURLToPath(m.migrations)],
  );
  return [path.join(root, 'migrations'), ...moduleFolders];
}

export function loadMigrations(folders: readonly string[]): Migration[] {
  const byId = new Map<string, Migration>();
  for (const folder of folders) {
    for (const file of fs.readdirSync(folder)) {
      if (!file.endsWith('.sql')) continue;
      if (!NAME.test(file))
        throw new Error(`migration ${path.join(folder, file)}: name must be NNNN_name.sql`);
      const id = file.slice(0, -'.sql'.length);
      if (byId.has(id)) throw new Error(`migration ${id} exists twice`);
      const sql = fs.readFileSync(path.join(folder, file), 'utf8');
      byId.set(id, { id, sql, checksum: createHash('sha256').update(sql).digest('hex') });
    }
  }
  // Code-unit order, not localeCompare: the ids start with unique sequence numbers, and collation would load
  // ICU's data (~2 MiB of resident memory) for this one sort.
  const migrations = [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const sequences = new Set<string>();
  for (const m of migrations) {
    const seq = m.id.slice(0, 4);
    if (sequences.has(seq)) throw new Error(`two migrations share the sequence number ${seq}`);
    sequences.add(seq);
  }
  return migrations;
}

async function ensureTable(conn: Queryable): Promise<void> {
  await conn.exec(`create table if not exists svc_migrations (
    id text primary key,
    checksum text not null,
    applied_at timestamptz not null default now()
  )`);
}

async function appliedChecksums(conn: Queryable): Promise<Map<string, string>> {
  const { rows } = await conn.query<{ id: string; checksum: string }>(
    'select id, checksum from svc_migrations',
  );
  return new Map(rows.map((r) => [r.id, r.checksum]));
}

/** Applies pending migrations under an advisory lock, so instances starting together take turns. */
export async function migrate(db: Database, migrations: readonly Migration[]): Promise<string[]> {
  return db.withAdvisoryLock(MIGRATION_LOCK_KEY, async (conn) => {
    await ensureTable(conn);
    const applied = await appliedChecksums(conn);
    const done: string[] = [];
    for (const migration of migrations) {
      const checksum = applied.get(migration.id);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) {
          throw new Error(
            `migration ${migration.id} was changed after it was applied; add a new migration instead`,
          );
        }
        continue;
      }
      await conn.exec('begin');
      try {
        await conn.exec(migration.sql);
        await conn.query('insert into svc_migrations (id, checksum) values ($1, $2)', [
          migration.id,
          migration.checksum,
        ]);
        await conn.exec('commit');
      } catch (error) {
        await conn.exec('rollback');
        throw new Error(`migration ${migration.id} failed: ${(error as Error).message}`, { cause: error });
      }
      done.push(migration.id);
    }
    return done;
  });
}

/** A short name for exactly this list of migrations (their ids and contents). */
export function migrationSetKey(migrations: readonly Migration[]): string {
  const hash = createHash('sha256');
  for (const m of migrations) hash.update(`${m.id}:${m.checksum}\n`);
  return hash.digest('hex').slice(0, 16);
}

/** Ids of migrations not yet applied (readiness check). */
export async function pendingMigrations(db: Queryable, migrations: readonly Migration[]): Promise<string[]> {
  const { rows } = await db.query<{ present: boolean }>(
    "select to_regclass('public.svc_migrations') is not null as present",
  );
  if (rows[0]?.present !== true) return migrations.map((m) => m.id);
  const applied = await appliedChecksums(db);
  return migrations.filter((m) => !applied.has(m.id)).map((m) => m.id);
}
