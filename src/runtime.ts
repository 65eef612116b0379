import type { FastifyInstance } from 'fastify';
import { appMigrations, buildApp, MODULES } from './app.ts';
import type { Config } from './config.ts';
import { type Clock, systemClock } from './core/clock.ts';
import type { Database } from './core/db/database.ts';
import { type Migration, migrate, migrationSetKey } from './core/db/migrations.ts';
import { openPglite } from './core/db/pglite.ts';
import { openPostgres } from './core/db/postgres.ts';
import type { ModuleManifest } from './core/modules/manifest.ts';

/**
 * PostgreSQL when DATABASE_URL is set, else PGlite in SVC_DATA_DIR (or in memory when asked). A new
 * SVC_DATA_DIR starts as a copy of a template with `migrations` (default: the app's) already applied.
 */
export async function openDatabase(
  config: Config,
  options: { inMemory?: boolean; migrations?: readonly Migration[] } = {},
): Promise<Database> {
  if (config.databaseUrl !== undefined) return openPostgres(config.databaseUrl);
  if (options.inMemory === true) return openPglite(undefined);
  const migrations = options.migrations ?? appMigrations();
  return openPglite(config.dataDir, {
    key: `migrated-${migrationSetKey(migrations)}`,
    prepare: async (db) => {
      await migrate(db, migrations);
    },
  });
}

export interface Runtime {
  app: FastifyInstance;
  db: Database;
  close(): Promise<void>;
}

/** Opens the database, applies migrations and builds the app; `close()` closes the app, then the database. */
export async function createRuntime(
  config: Config,
  options: {
    clock?: Clock;
    db?: Database;
    inMemory?: boolean;
    /** Run the modules' background workers (default true). */
    workers?: boolean;
    /** The modules to run (default MODULES). */
    modules?: readonly ModuleManifest[];
  } = {},
): Promise<Runtime> {
  const modules = options.modules ?? MODULES;
  const migrations = appMigrations(modules);
  const db =
    options.db ??
    (await openDatabase(config, {
      migrations,
      ...(options.inMemory === undefined ? {} : { inMemory: options.inMemory }),
    }));
  try {
    await migrate(db, migrations);
    const app = await buildApp({
      config,
      db,
      clock: options.clock ?? systemClock,
      modules,
      ...(options.workers === undefined ? {} : { workers: options.workers }),
    });
    // The database closes after the app, so onClose hooks (e.g. flushing usage) can still write.
    const close = async () => {
      try {
        await app.close();
      } finally {
        if (options.db === undefined) await db.close();
      }
    };
    return { app, db, close };
  } catch (error) {
    if (options.db === undefined) await db.close();
    throw error;
  }
}
