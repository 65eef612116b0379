import path from 'node:path';
import type { Config } from './config.ts';
import type { Database } from './core/db/database.ts';
import { type Migration, migrate, migrationSetKey } from './core/db/migrations.ts';
import { openPglite } from './core/db/pglite.ts';
import { isDataDir } from './core/db/pglite-template.ts';

/**
 * Opening the database, apart from the app: light to import, so `svc start` can open it on the database's
 * own thread while the main thread loads the service's modules (see cli.ts).
 */
export interface OpenOptions {
  inMemory?: boolean;
  /**
   * The migrations a new SVC_DATA_DIR's template has applied (default: the app's). Asked for only when
   * a new data directory is made.
   */
  migrations?: () => Promise<readonly Migration[]>;
  /** Told what a long step is doing (see commands/progress.ts). */
  progress?: (message: string) => void;
}

/**
 * PostgreSQL when DATABASE_URL is set, else PGlite in SVC_DATA_DIR (or in memory when asked). A new
 * SVC_DATA_DIR, and an in-memory database, start as a copy of a template with the migrations already
 * applied. The PostgreSQL driver is loaded only when it is used.
 */
export async function openDatabase(config: Config, options: OpenOptions = {}): Promise<Database> {
  const progress = options.progress ?? (() => {});
  if (config.databaseUrl !== undefined) {
    const { databaseAddress, openPostgres } = await import('./core/db/postgres.ts');
    progress(`connecting to PostgreSQL at ${databaseAddress(config.databaseUrl)} (DATABASE_URL)`);
    return openPostgres(config.databaseUrl, { max: config.databasePoolMax });
  }
  const migrations = options.migrations ?? (async () => (await import('./app.ts')).appMigrations());
  const migrated = async () => {
    const list = await migrations();
    return {
      key: `migrated-${migrationSetKey(list)}`,
      prepare: async (db: Database) => {
        progress(`applying ${list.length} migrations to the database template`);
        await migrate(db, list);
      },
    };
  };
  // In memory too: from the migrated template's image instead of initdb and every migration again.
  if (options.inMemory === true) return openPglite(undefined, migrated);
  progress(`opening the embedded database in ${config.dataDir}`);
  return openPglite(config.dataDir, migrated, progress);
}

/** Whether `openDatabase` would open what exists, creating nothing: a server, or a data dir made before. */
export function databaseExists(config: Config): boolean {
  return config.databaseUrl !== undefined || isDataDir(path.join(config.dataDir, 'pgdata'));
}
