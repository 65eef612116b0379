import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import type { Database } from '../../src/core/db/database.ts';
import { openPglite } from '../../src/core/db/pglite.ts';

/**
 * The embedded data directory's lock (issue 28, item 13): it dies with its process, so a PID file naming a
 * process that exists (after a reboot, or PID 1 in a container) does not refuse a start, and a live owner
 * still refuses a second one, in this process or in another.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/svc.mjs');

const folders: string[] = [];
const open: Database[] = [];
after(async () => {
  for (const db of open) await db.close();
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-lock-'));
  folders.push(dir);
  return dir;
}

async function opened(dir: string): Promise<Database> {
  const db = await openPglite(dir);
  open.push(db);
  return db;
}

async function closed(db: Database): Promise<void> {
  await db.close();
  open.splice(open.indexOf(db), 1);
}

describe('embedded data directory lock', () => {
  test('a PID file naming a live process that is not the owner (PID 1, the parent) does not refuse the start', async () => {
    for (const pid of [1, process.ppid]) {
      const dir = dataDir();
      fs.writeFileSync(path.join(dir, 'pglite.pid'), String(pid));
      const db = await opened(dir);
      assert.deepEqual((await db.query('select 1 as one')).rows, [{ one: 1 }]);
      assert.equal(fs.existsSync(path.join(dir, 'pglite.pid')), false, 'the old PID file is removed');
      await closed(db);
    }
  });

  test('a lock left by a killed process does not refuse the start', async () => {
    const dir = dataDir();
    const socket = path.join(dir, 'pglite.lock');
    // A process that holds the lock as the service does (a Unix socket listening there), then is killed.
    const holder = spawn(process.execPath, [
      '-e',
      `require('node:net').createServer().listen(${JSON.stringify(socket)}, () => console.log('held'))`,
    ]);
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    holder.kill('SIGKILL');
    await exited;
    assert.ok(fs.existsSync(socket), 'the killed process left its socket file behind');

    const db = await opened(dir);
    assert.deepEqual((await db.query('select 1 as one')).rows, [{ one: 1 }]);
    await closed(db);
    assert.equal(fs.existsSync(socket), false, 'closing releases the lock');
  });

  test('while the owner lives, a second open is refused: in the same process and in another, naming the owner', async () => {
    const dir = dataDir();
    const db = await opened(dir);
    const expected = new RegExp(
      `the embedded database in ${escaped(dir)} is in use by process ${process.pid}; stop it or set SVC_DATA_DIR to another folder`,
    );
    await assert.rejects(openPglite(dir), expected);

    // Spawned without blocking this thread: the owner answers a probe with its PID from its event loop.
    const other = spawn(process.execPath, [BIN, 'migrate'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_DATA_DIR: dir, SVC_ENV: 'development' },
    });
    let stderr = '';
    other.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const status = await new Promise<number | null>((resolve) => other.once('exit', resolve));
    assert.equal(status, 1, stderr);
    assert.match(stderr, expected);
    assert.deepEqual((await db.query('select 1 as one')).rows, [{ one: 1 }], 'the owner is unharmed');
    await closed(db);
    const again = await opened(dir);
    await closed(again);
  });

  test('two opens racing for a stale lock: exactly one gets it', async () => {
    const dir = dataDir();
    fs.writeFileSync(path.join(dir, 'pglite.lock'), 'not a socket: nobody listens here');
    const results = await Promise.allSettled([openPglite(dir), openPglite(dir)]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r) => r.status === 'rejected');
    for (const r of won) open.push(r.value);
    assert.equal(won.length, 1, JSON.stringify(results.map((r) => r.status)));
    assert.match(String(lost[0]?.reason), /is in use by process \d+/);
  });
});

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
