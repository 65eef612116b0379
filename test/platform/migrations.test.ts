import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { appMigrations } from '../../src/app.ts';
import type { Database } from '../../src/core/db/database.ts';
import { loadMigrations, migrate, pendingMigrations } from '../../src/core/db/migrations.ts';
import { openPglite } from '../../src/core/db/pglite.ts';
import { openPostgres } from '../../src/core/db/postgres.ts';

const serverUrl = process.env.DATABASE_URL;
const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A database nobody has migrated: in-memory PGlite, or a new database on the server when DATABASE_URL is set. */
async function freshDatabaseUrl(server: string): Promise<string> {
  const name = `svc_mig_${Date.now()}_${randomBytes(4).toString('hex')}`;
  const admin = await openPostgres(server, { max: 1 });
  await admin.exec(`create database ${name}`);
  cleanups.push(async () => {
    await admin.exec(`drop database if exists ${name} with (force)`);
    await admin.close();
  });
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
}

async function openFresh(): Promise<Database> {
  const db =
    serverUrl === undefined
      ? await openPglite(undefined)
      : await openPostgres(await freshDatabaseUrl(serverUrl));
  cleanups.push(() => db.close());
  return db;
}

function migrationFolder(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-migrations-'));
  cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  for (const [name, sql] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), sql);
  return dir;
}

async function tableExists(db: Database, name: string): Promise<boolean> {
  const { rows } = await db.query<{ present: boolean }>('select to_regclass($1) is not null as present', [
    `public.${name}`,
  ]);
  return rows[0]?.present === true;
}

async function appliedIds(db: Database): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>('select id from svc_migrations order by id');
  return rows.map((r) => r.id);
}

describe(`migrations (${serverUrl === undefined ? 'PGlite' : 'PostgreSQL server'})`, () => {
  test('a fresh database gets every migration once; running again applies nothing', async () => {
    const db = await openFresh();
    const all = appMigrations().map((m) => m.id);
    assert.ok(all.length > 0);
    assert.deepEqual(await pendingMigrations(db, appMigrations()), all);
    assert.deepEqual(await migrate(db, appMigrations()), all);
    assert.deepEqual(await migrate(db, appMigrations()), []);
    assert.deepEqual(await appliedIds(db), all);
    assert.deepEqual(await pendingMigrations(db, appMigrations()), []);
  });

  test('an applied migration whose file changed is refused', async () => {
    const db = await openFresh();
    const dir = migrationFolder({ '0001_first.sql': 'create table mig_first (id int);' });
    assert.deepEqual(await migrate(db, loadMigrations([dir])), ['0001_first']);
    fs.writeFileSync(path.join(dir, '0001_first.sql'), 'create table mig_first (id int, extra text);');
    fs.writeFileSync(path.join(dir, '0002_second.sql'), 'create table mig_second (id int);');
    await assert.rejects(
      migrate(db, loadMigrations([dir])),
      /migration 0001_first was changed after it was applied/,
    );
    assert.equal(await tableExists(db, 'mig_second'), false, 'nothing after the refusal ran');
    assert.deepEqual(await appliedIds(db), ['0001_first']);
  });

  test('a failing migration leaves no trace and can be fixed before it is applied', async () => {
    const db = await openFresh();
    const dir = migrationFolder({
      '0001_ok.sql': 'create table mig_ok (id int);',
      '0002_broken.sql': 'create table mig_half (id int);\nselect * from no_such_table;',
    });
    await assert.rejects(migrate(db, loadMigrations([dir])), /migration 0002_broken failed/);
    assert.deepEqual(await appliedIds(db), ['0001_ok']);
    assert.equal(await tableExists(db, 'mig_ok'), true);
    assert.equal(await tableExists(db, 'mig_half'), false, 'the failed file was rolled back as a whole');

    fs.writeFileSync(path.join(dir, '0002_broken.sql'), 'create table mig_half (id int);');
    assert.deepEqual(await migrate(db, loadMigrations([dir])), ['0002_broken']);
    assert.equal(await tableExists(db, 'mig_half'), true);
  });

  test('file names must be NNNN_name.sql with unique sequence numbers', () => {
    const badName = migrationFolder({ '1_first.sql': 'select 1;' });
    assert.throws(() => loadMigrations([badName]), /name must be NNNN_name\.sql/);
    const shared = migrationFolder({ '0003_a.sql': 'select 1;' });
    const other = migrationFolder({ '0003_b.sql': 'select 1;' });
    assert.throws(() => loadMigrations([shared, other]), /share the sequence number 0003/);
    const ordered = migrationFolder({ '0002_b.sql': 'select 2;', '0001_a.sql': 'select 1;', 'notes.md': '' });
    assert.deepEqual(
      loadMigrations([ordered]).map((m) => m.id),
      ['0001_a', '0002_b'],
    );
  });

  test('two instances migrating one fresh database at once both succeed (advisory lock)', {
    skip: serverUrl === undefined ? 'needs DATABASE_URL (PostgreSQL server)' : false,
  }, async () => {
    const server = serverUrl ?? '';
    const url = await freshDatabaseUrl(server);
    const first = await openPostgres(url, { max: 2 });
    const second = await openPostgres(url, { max: 2 });
    cleanups.push(
      () => first.close(),
      () => second.close(),
    );
    const all = appMigrations().map((m) => m.id);
    const [a, b] = await Promise.all([migrate(first, appMigrations()), migrate(second, appMigrations())]);
    assert.deepEqual([...a, ...b].sort(), all, 'each migration applied by exactly one instance');
    assert.deepEqual(await appliedIds(first), all);
    assert.deepEqual(await pendingMigrations(second, appMigrations()), []);
  });
});
