import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { unusedPort } from '../support/ports.ts';

/**
 * `svc start` with REDIS_URL at a port nothing listens on refuses to start: it exits non-zero with one
 * message naming REDIS_URL, instead of hanging without listening. The bound only turns a hang into a
 * failure; it asserts nothing about speed.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/svc.mjs');
const HANG_MS = 90_000;

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('svc start with REDIS_URL at a closed port', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-redis-start-'));
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test('exits 1 with a message that names REDIS_URL, and never listens', async () => {
    const redisUrl = `redis://127.0.0.1:${await unusedPort()}`;
    const child = spawn(process.execPath, [BIN, 'start'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        SVC_ENV: 'development',
        SVC_DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'info',
        REDIS_URL: redisUrl,
      },
    });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([
      new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode))),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`svc start did not exit:\n${stdout}\n${stderr}`)), HANG_MS);
      }),
    ]).finally(() => clearTimeout(timer));
    assert.equal(code, 1, `${stdout}\n${stderr}`);
    assert.doesNotMatch(stdout, /svc listening on/);
    assert.match(
      stderr,
      new RegExp(
        `^svc: REDIS_URL ${redisUrl} does not answer \\(connect ECONNREFUSED 127\\.0\\.0\\.1:\\d+; tried for 5 s\\)`,
        'm',
      ),
    );
    // One message, not a line per reconnection attempt of every Redis connection.
    const errorLines = `${stdout}\n${stderr}`
      .split('\n')
      .filter((line) => /"level":50|ECONNREFUSED/.test(line));
    assert.equal(errorLines.length, 1, `${stdout}\n${stderr}`);
  });
});
