import type { FastifyInstance } from 'fastify';
import { appMigrations, buildApp, MODULES } from './app.ts';
import type { Config } from './config.ts';
import { type Clock, systemClock } from './core/clock.ts';
import type { Database } from './core/db/database.ts';
import { type Migration, migrate, pendingMigrations } from './core/db/migrations.ts';
import { openingDatabase } from './core/db/opening.ts';
import type { ModuleManifest } from './core/modules/manifest.ts';
import { type MetricsListener, ServiceMetrics, startMetricsListener } from './core/ops/metrics/index.ts';
import { openTracing } from './core/ops/tracing/index.ts';
import { openDatabase } from './open-database.ts';

export { openDatabase };

export interface Runtime {
  app: FastifyInstance;
  db: Database;
  /** The internal metrics listener, when SVC_METRICS_PORT is set. */
  metrics: MetricsListener | undefined;
  close(): Promise<void>;
}

/**
 * Opens the database, applies migrations and builds the app, the last two while the first is under way;
 * `close()` closes the app, then the database.
 */
export async function createRuntime(
  config: Config,
  options: {
    clock?: Clock;
    /** A database the caller keeps (and closes). */
    db?: Database;
    /** A database already being opened (`openDatabase`), which the runtime then owns and closes. */
    opening?: Promise<Database>;
    inMemory?: boolean;
    /** Run the modules' background workers (default true). */
    workers?: boolean;
    /** The modules to run (default MODULES). */
    modules?: readonly ModuleManifest[];
    /** Told what a long step of the start is doing (svc start prints it; see commands/progress.ts). */
    progress?: (message: string) => void;
  } = {},
): Promise<Runtime> {
  const modules = options.modules ?? MODULES;
  const migrations = appMigrations(modules);
  // The app builds while the database opens and migrates: its statements wait for the database, and
  // `buildApp` awaits `prepared` before it returns (docs/operations.md, start-up).
  const db =
    options.db ??
    openingDatabase(
      config.databaseUrl === undefined ? 'pglite' : 'postgres',
      options.opening ??
        openDatabase(config, {
          migrations: async () => migrations,
          ...(options.inMemory === undefined ? {} : { inMemory: options.inMemory }),
          ...(options.progress === undefined ? {} : { progress: options.progress }),
        }),
    );
  // Per app, never prom-client's global registry: two runtimes in one process keep their own series.
  const metrics = config.metrics === undefined ? undefined : new ServiceMetrics();
  // OpenTelemetry is loaded only when an OTLP endpoint is set (docs/operations.md, traces).
  const tracing =
    config.tracing === undefined
      ? undefined
      : await openTracing(config.tracing, {
          postgres: config.databaseUrl !== undefined,
          redis: config.redisUrl !== undefined,
        });
  try {
    const prepared =
      options.progress === undefined
        ? migrate(db, migrations)
        : migrateSaying(db, migrations, options.progress);
    const app = await buildApp({
      config,
      db,
      prepared,
      clock: options.clock ?? systemClock,
      modules,
      ...(options.workers === undefined ? {} : { workers: options.workers }),
      ...(metrics === undefined ? {} : { metrics }),
      ...(tracing === undefined ? {} : { tracing }),
    });
    const listener =
      config.metrics === undefined || metrics === undefined
        ? undefined
        : await startMetricsListener(app, metrics, config.metrics).catch(async (error: unknown) => {
            await app.close();
            throw error;
          });
    // The database closes after the app, so onClose hooks (e.g. flushing usage) can still write.
    const close = async () => {
      try {
        await listener?.close();
        await app.close();
      } finally {
        await tracing?.close();
        if (options.db === undefined) await db.close();
      }
    };
    return { app, db, metrics: listener, close };
  } catch (error) {
    await tracing?.close();
    if (options.db === undefined) await db.close();
    throw error;
  }
}

/** Migrations with a word first when there are any to apply (a new data dir has them all already). */
async function migrateSaying(
  db: Database,
  migrations: readonly Migration[],
  progress: (message: string) => void,
): Promise<string[]> {
  const pending = await pendingMigrations(db, migrations);
  const [first, last] = [pending[0], pending.at(-1)];
  if (first !== undefined && last !== undefined) {
    const which = pending.length === 1 ? first : `${first} to ${last}`;
    progress(`applying ${pending.length} migration${pending.length === 1 ? '' : 's'} (${which})`);
  }
  return migrate(db, migrations);
}
