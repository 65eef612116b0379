import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { appMigrations } from '../../src/app.ts';
import type { Database } from '../../src/core/db/database.ts';
import { migrate, migrationSetKey, pendingMigrations } from '../../src/core/db/migrations.ts';
import { openPglite, type PgliteTemplate } from '../../src/core/db/pglite.ts';
import { templateImage } from '../../src/core/db/pglite-template.ts';

// In-memory databases (every test app's) start from the migrated template's image, a tarball PGlite
// unpacks instead of running initdb and every migration again.
const folders: string[] = [];
const open: Database[] = [];
after(async () => {
  for (const db of open) await db.close();
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});

async function inMemory(template: PgliteTemplate): Promise<Database> {
  const db = await openPglite(undefined, template);
  open.push(db);
  return db;
}

async function tableExists(db: Database, name: string): Promise<boolean> {
  const { rows } = await db.query<{ present: boolean }>('select to_regclass($1) is not null as present', [
    `public.${name}`,
  ]);
  return rows[0]?.present === true;
}

function migratedTemplate(): PgliteTemplate & { prepared: number } {
  const migrations = appMigrations();
  const template = {
    key: `migrated-${migrationSetKey(migrations)}`,
    cacheRoot: fs.mkdtempSync(path.join(os.tmpdir(), 'svc-image-cache-')),
    prepared: 0,
    prepare: async (db: Database) => {
      template.prepared += 1;
      await migrate(db, migrations);
    },
  };
  folders.push(template.cacheRoot);
  return template;
}

describe('in-memory embedded databases from the template image', () => {
  test('the first one is prepared and kept as an image; the next start from it, migrated, each its own database', async () => {
    const migrations = appMigrations();
    const template = migratedTemplate();
    const first = await inMemory(template);
    assert.deepEqual(await pendingMigrations(first, migrations), []);
    assert.equal(fs.existsSync(templateImage(template.key, template.cacheRoot)), true);
    await first.exec('create table only_in_first (x int)');

    const second = await inMemory(template);
    const third = await inMemory(template);
    assert.equal(template.prepared, 1, 'prepared once, for the first');
    assert.deepEqual(await pendingMigrations(second, migrations), []);
    await second.query("insert into tenants (id, name, workspace_type) values ('ten_image', 'x', 'sandbox')");
    assert.equal(await tableExists(second, 'only_in_first'), false);
    const { rows } = await third.query<{ n: number }>(
      "select count(*)::int as n from tenants where id = 'ten_image'",
    );
    assert.equal(rows[0]?.n, 0, 'a row written in one copy is not in another');
    const { rows: settings } = await third.query<{ shared_buffers: string }>('show shared_buffers');
    assert.equal(settings[0]?.shared_buffers, '4MB', 'started with the same parameters');
  });

  test('an image PGlite cannot start from is made again from a prepared database', async () => {
    const template = migratedTemplate();
    const file = templateImage(template.key, template.cacheRoot);
    fs.writeFileSync(file, Buffer.alloc(4096, 1));
    const db = await inMemory(template);
    assert.equal(template.prepared, 1);
    assert.deepEqual(await pendingMigrations(db, appMigrations()), []);
    assert.ok(fs.statSync(file).size > 4096, 'the image was written again');
  });

  test('without a template an in-memory database is a new, empty one', async () => {
    const db = await openPglite(undefined);
    open.push(db);
    assert.equal(await tableExists(db, 'svc_migrations'), false);
  });
});
