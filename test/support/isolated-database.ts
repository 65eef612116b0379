import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { appMigrations } from '../../src/app.ts';
import type { Database } from '../../src/core/db/database.ts';
import { migrate, migrationSetKey } from '../../src/core/db/migrations.ts';
import { openPostgres } from '../../src/core/db/postgres.ts';
import { openDatabase } from '../../src/open-database.ts';
import { testConfig } from '../helper.ts';

export interface IsolatedDatabase {
  db: Database;
  /** Closes it; on the PostgreSQL server also drops it. */
  close(): Promise<void>;
}

/**
 * A migrated database no other test process uses: in-memory PGlite, or with DATABASE_URL a database of
 * its own on that server. For tests that write under another encryption key or plant rows of an older
 * version: on the shared database every starting test app would meet them. Both start as a copy of a
 * database the migrations were applied to once (PGlite's template image; on the server
 * `CREATE DATABASE ... TEMPLATE`), then `migrate` finds nothing left to do.
 */
export async function isolatedDatabase(label: string): Promise<IsolatedDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl === undefined || serverUrl === '') {
    const db = await openDatabase(testConfig(), { inMemory: true });
    await migrate(db, appMigrations());
    return { db, close: () => db.close() };
  }
  const template = await migratedTemplateDatabase(serverUrl);
  const name = `svc_test_${label}_${randomBytes(4).toString('hex')}`;
  await admin(serverUrl, `create database ${name} template "${template}"`);
  const db = await openPostgres(databaseUrl(serverUrl, name));
  await migrate(db, appMigrations());
  return {
    db,
    async close() {
      await db.close();
      await admin(serverUrl, `drop database if exists ${name} with (force)`);
    },
  };
}

/**
 * The name of a database on the server with every migration applied and no connection to it, made once
 * per set of migrations (its name holds the set's key) beside DATABASE_URL's database: isolated
 * databases are cloned from it. Made under a name of its own and renamed when complete, so a clone never
 * starts from a half-migrated one; of two processes making it at once, the second rename fails and that
 * copy is dropped.
 */
export async function migratedTemplateDatabase(serverUrl: string): Promise<string> {
  const base = new URL(serverUrl).pathname.slice(1) || 'postgres';
  const name = `${base.slice(0, 36)}_tpl_${migrationSetKey(appMigrations())}`;
  if (await databaseExists(serverUrl, name)) return name;
  const building = `${name}_${randomBytes(3).toString('hex')}`;
  await admin(serverUrl, `create database "${building}"`);
  try {
    const db = await openPostgres(databaseUrl(serverUrl, building));
    try {
      await migrate(db, appMigrations());
    } finally {
      await db.close();
    }
    await admin(serverUrl, `alter database "${building}" rename to "${name}"`);
  } catch (error) {
    await admin(serverUrl, `drop database if exists "${building}" with (force)`);
    if (!(await databaseExists(serverUrl, name))) throw error;
  }
  return name;
}

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function databaseExists(serverUrl: string, name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query('select 1 from pg_database where datname = $1', [name]);
    return rows.length > 0;
  } finally {
    await client.end();
  }
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
