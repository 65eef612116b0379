import type { Config } from '../config.ts';
import type { Database } from '../core/db/database.ts';
import { migrate } from '../core/db/migrations.ts';
import { openDatabase } from '../open-database.ts';

/**
 * The database an admin command works on, with its migrations applied as `svc migrate` would (so the
 * first credential can be made before the first start); closed when `work` ends. On the embedded database
 * the service must be stopped: its folder belongs to one process.
 */
export async function withMigratedDatabase<T>(
  config: Config,
  work: (db: Database) => Promise<T>,
  say: (message: string) => void,
): Promise<T> {
  const { appMigrations } = await import('../app.ts');
  const db = await openDatabase(config);
  try {
    const applied = await migrate(db, appMigrations());
    if (applied.length > 0) say(`applied ${applied.length} pending migrations first`);
    return await work(db);
  } finally {
    await db.close();
  }
}
