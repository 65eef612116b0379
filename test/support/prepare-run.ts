// Run once by scripts/run-tests.mjs before the test files: makes what every file's databases start from,
// so the files that start together do not each make it. On embedded PGlite, the migrated template's
// image (src/core/db/pglite-template.ts), made only when this set of migrations has none yet; on the
// PostgreSQL server, the runner has applied the migrations, and the template isolated databases are
// cloned from (isolated-database.ts) is made here when missing.
import { openDatabase } from '../../src/open-database.ts';
import { testConfig } from '../helper.ts';
import { migratedTemplateDatabase } from './isolated-database.ts';

const config = testConfig();
if (config.databaseUrl === undefined) {
  const db = await openDatabase(config, { inMemory: true });
  await db.close();
} else {
  await migratedTemplateDatabase(config.databaseUrl);
}
