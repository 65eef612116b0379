import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { appMigrations } from '../../src/app.ts';
import type { Database } from '../../src/core/db/database.ts';
import { migrate } from '../../src/core/db/migrations.ts';
import { openPglite } from '../../src/core/db/pglite.ts';
import { openPostgres } from '../../src/core/db/postgres.ts';

export interface IsolatedDatabase {
  db: Database;
  /** Closes it; on the PostgreSQL server also drops it. */
  close(): Promise<void>;
}

/**
 * A migrated database no other test process uses: in-memory PGlite, or with DATABASE_URL a database of
 * its own on that server. For tests that write under another encryption key or plant rows of an older
 * version: on the shared database every starting test app would meet them.
 */
export async function isolatedDatabase(label: string): Promise<IsolatedDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl === undefined || serverUrl === '') {
    const db = await openPglite(undefined);
    await migrate(db, appMigrations());
    return { db, close: () => db.close() };
  }
  const name = `svc_test_${label}_${randomBytes(4).toString('hex')}`;
  await admin(serverUrl, `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = await openPostgres(url.toString());
  await migrate(db, appMigrations());
  return {
    db,
    async close() {
      await db.close();
      await admin(serverUrl, `drop database if exists ${name} with (force)`);
    },
  };
}

async function admin(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
