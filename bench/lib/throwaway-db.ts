import pg from 'pg';

/**
 * Runs `fn` with the URL of a new database on the PostgreSQL server (BENCH_PG_URL, default the local
 * one), dropped afterwards; says so and skips when the server cannot be reached.
 */
export async function withThrowawayDatabase(
  prefix: string,
  fn: (url: string) => Promise<void>,
): Promise<void> {
  const serverUrl = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 2000 });
  let database: string | undefined;
  try {
    await admin.connect();
    database = `${prefix}_${Date.now()}`;
    await admin.query(`create database ${database}`);
  } catch (error) {
    process.stdout.write(`\nPostgreSQL skipped: ${(error as Error).message}\n`);
  }
  try {
    if (database !== undefined) {
      const url = new URL(serverUrl);
      url.pathname = `/${database}`;
      await fn(url.toString());
    }
  } finally {
    if (database !== undefined) await admin.query(`drop database if exists ${database} with (force)`);
    await admin.end().catch(() => {});
  }
}
