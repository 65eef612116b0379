import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { appMigrations } from '../../src/app.ts';
import { openPglite } from '../../src/core/db/pglite.ts';

/**
 * The compiled service (scripts/build.mjs, run by `npm ci`) is what `svc` runs after an install: built
 * into a folder of its own here, it must find what lies beside the sources (each module's migrations, the
 * embedded database's thread script, the template cache) and work as the sources do.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the compiled service', () => {
  const outdir = path.join(ROOT, 'node_modules/.cache', `svc-build-test-${process.pid}`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-build-test-'));
  after(() => {
    fs.rmSync(outdir, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('builds, and migrates a new embedded database from the built code', async () => {
    const built = spawnSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs'), outdir], {
      encoding: 'utf8',
    });
    assert.equal(built.status, 0, built.stderr);
    assert.ok(fs.existsSync(path.join(outdir, 'BUILT')));
    const cli = path.join(outdir, 'cli.js');
    const run = (command: string) =>
      spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const { main } = await import(${JSON.stringify(cli)}); process.exitCode = await main([${JSON.stringify(command)}]);`,
        ],
        {
          encoding: 'utf8',
          // The OpenAPI document is over 1 MiB, spawnSync's default output limit.
          maxBuffer: 64 * 1024 * 1024,
          env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
        },
      );
    const first = run('migrate');
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /^migrations: up to date\n$/); // the new data dir is a copy of the migrated template
    // Every migration of core and of every module, found from the built code, is applied there.
    const db = await openPglite(dataDir);
    try {
      const { rows } = await db.query<{ id: string }>('select id from svc_migrations order by id');
      assert.deepEqual(
        rows.map((row) => row.id),
        appMigrations().map((migration) => migration.id),
      );
    } finally {
      await db.close();
    }
    const listed = run('openapi');
    assert.equal(listed.status, 0, listed.stderr);
    assert.ok(JSON.parse(listed.stdout).paths['/v1/rooms'], 'the built app serves the rooms routes');
  });
});
