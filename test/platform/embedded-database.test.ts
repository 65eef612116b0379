import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { appMigrations } from '../../src/app.ts';
import type { Database } from '../../src/core/db/database.ts';
import { migrate, migrationSetKey, pendingMigrations } from '../../src/core/db/migrations.ts';
import { openPglite, type PgliteTemplate } from '../../src/core/db/pglite.ts';
import { pgliteCompilations } from '../../src/core/db/pglite-client.ts';

// The embedded database only (issue 13, finding 9): what a new SVC_DATA_DIR starts from, and how much
// memory PostgreSQL takes for its buffers.
const folders: string[] = [];
const open: Database[] = [];
after(async () => {
  for (const db of open) await db.close();
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  folders.push(dir);
  return dir;
}

async function opened(dataDir: string | undefined, template?: PgliteTemplate): Promise<Database> {
  const db = await openPglite(dataDir, template);
  open.push(db);
  return db;
}

async function tableExists(db: Database, name: string): Promise<boolean> {
  const { rows } = await db.query<{ present: boolean }>('select to_regclass($1) is not null as present', [
    `public.${name}`,
  ]);
  return rows[0]?.present === true;
}

describe('embedded database (PGlite)', () => {
  test('runs with 4 MB of shared buffers, not PostgreSQL’s 128 MB default held in memory at start', async () => {
    const db = await opened(undefined);
    const { rows } = await db.query<{ shared_buffers: string }>('show shared_buffers');
    assert.equal(rows[0]?.shared_buffers, '4MB');
  });

  test('a new data dir is a copy of a template made once, with every migration applied, and is its own database', async () => {
    const migrations = appMigrations();
    let prepared = 0;
    const template: PgliteTemplate = {
      key: `migrated-${migrationSetKey(migrations)}`,
      cacheRoot: tempDir('svc-template-cache-'),
      prepare: async (db) => {
        prepared += 1;
        await migrate(db, migrations);
      },
    };
    const first = await opened(path.join(tempDir('svc-data-'), 'a'), template);
    assert.deepEqual(await pendingMigrations(first, migrations), []);
    await first.exec('create table only_in_first (x int)');

    const second = await opened(path.join(tempDir('svc-data-'), 'b'), template);
    assert.deepEqual(await pendingMigrations(second, migrations), []);
    assert.equal(prepared, 1, 'the template is made once');
    assert.equal(await tableExists(second, 'only_in_first'), false);
    assert.equal(await tableExists(first, 'only_in_first'), true);
    const cached = fs.readdirSync(template.cacheRoot ?? '');
    assert.deepEqual(cached, [`pgdata-template-${readPgliteVersion()}-${template.key}`]);
  });

  test('a copy that a killed process left half done is removed, and the data dir is made whole', async () => {
    const migrations = appMigrations();
    const dataDir = tempDir('svc-data-');
    const stale = path.join(dataDir, 'pgdata.partial-99999999');
    fs.mkdirSync(path.join(stale, 'base'), { recursive: true });
    const template: PgliteTemplate = {
      key: `migrated-${migrationSetKey(migrations)}`,
      cacheRoot: tempDir('svc-template-cache-'),
      prepare: async (db) => {
        await migrate(db, migrations);
      },
    };
    const db = await opened(dataDir, template);
    assert.deepEqual(await pendingMigrations(db, migrations), []);
    assert.deepEqual(fs.readdirSync(dataDir).sort(), ['pgdata', 'pglite.lock']);
  });

  test('a transaction whose set-up fails rejects with the set-up’s error, runs none of its statements, and the next one runs', async () => {
    const db = await opened(undefined);
    await db.exec('create table pipelined (n int)');
    let statementError: unknown;
    await assert.rejects(
      db.transaction(
        async (tx) => {
          // BEGIN's answer is not awaited before this statement goes: it fails because BEGIN did.
          await tx.query('insert into pipelined values (1)').catch((error: unknown) => {
            statementError = error;
            throw error;
          });
        },
        { setup: 'set role no_such_role' },
      ),
      /role "no_such_role" does not exist/,
    );
    assert.match(String(statementError), /transaction \d+ is closed/);
    // A set-up that fails and a body that swallows its statement's error: still BEGIN's error.
    await assert.rejects(
      db.transaction(async (tx) => tx.query('select 1').catch(() => 'ignored'), {
        setup: 'set role no_such_role',
      }),
      /role "no_such_role" does not exist/,
    );
    await db.transaction(async (tx) => {
      await tx.query('insert into pipelined values (2)');
    });
    const { rows } = await db.query<{ n: number }>('select n from pipelined order by n');
    assert.deepEqual(
      rows.map((r) => r.n),
      [2],
    );
  });

  test("the process's later database threads start from the module the first one compiled", async () => {
    const first = await opened(tempDir('svc-shared-module-'));
    const compiled = pgliteCompilations();
    assert.ok(compiled >= 1, 'the first thread compiled PGlite');
    const more = [await opened(tempDir('svc-shared-module-')), await opened(tempDir('svc-shared-module-'))];
    assert.equal(pgliteCompilations(), compiled, 'no thread compiled it again');
    // Each is its own database all the same.
    await first.exec('create table only_in_first (n int)');
    for (const db of more) assert.equal(await tableExists(db, 'only_in_first'), false);
  });
});

function readPgliteVersion(): string {
  const entry = new URL(import.meta.resolve('@electric-sql/pglite'));
  const manifest = path.resolve(path.dirname(entry.pathname), '..', 'package.json');
  return (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string }).version;
}
