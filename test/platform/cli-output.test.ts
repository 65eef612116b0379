import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { TEST_ENCRYPTION_KEY } from '../helper.ts';

/**
 * What the CLI prints and how it ends (issue 28, items 13, 19, 20), run as a person runs it. Waits are
 * bounded only to turn a hang into a failure.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/svc.mjs');
const HANG_MS = 300_000;

const children = new Set<ChildProcess>();
const folders: string[] = [];
process.once('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});
after(() => {
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  const child = spawn(command, args, { cwd: ROOT, env });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), HANG_MS);
  return new Promise((resolve) => {
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const baseEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  SVC_ENV: 'development',
  ...extra,
});

describe('svc output', () => {
  test('`svc openapi | head -c 200` ends quietly with status 0 when head closes the pipe', async () => {
    const result = await run(
      'bash',
      ['-c', `node ${JSON.stringify(BIN)} openapi | head -c 200; echo; echo "svc exited \${PIPESTATUS[0]}"`],
      baseEnv({ LOG_LEVEL: 'warn' }),
    );
    assert.match(result.stdout, /^\{\n {2}"openapi": "3\./);
    assert.match(result.stdout, /\nsvc exited 0\n$/);
    assert.equal(result.stderr, '', 'no EPIPE stack trace');
  });

  test('a start says what it is doing, and exits 1 naming PORT when the port is taken', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-output-'));
    folders.push(dataDir);
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const address = taken.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const databaseUrl = process.env.DATABASE_URL;
    try {
      const result = await run(
        process.execPath,
        [BIN, 'start'],
        baseEnv({
          SVC_DATA_DIR: path.join(dataDir, 'data'),
          HOST: '127.0.0.1',
          PORT: String(port),
          LOG_LEVEL: 'info',
          // A PostgreSQL shared with other test files holds signing keys stored under the tests' key.
          ...(databaseUrl === undefined
            ? {}
            : { DATABASE_URL: databaseUrl, SVC_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY }),
        }),
      );
      assert.equal(result.status, 1, result.stdout + result.stderr);
      const refusal = `svc: cannot listen on 127.0.0.1:${port} (HOST, PORT): the port is in use by another process; stop it or choose another PORT\n`;
      assert.ok(result.stderr.endsWith(refusal), result.stderr);
      const said = result.stderr.split('\n').filter((line) => line.startsWith('svc: '));
      if (databaseUrl === undefined) {
        assert.deepEqual(said.slice(0, 2), [
          `svc: opening the embedded database in ${path.join(dataDir, 'data')}`,
          said[1]?.startsWith('svc: new data directory: copying')
            ? 'svc: new data directory: copying the prepared database into it'
            : 'svc: new data directory, the first on this machine for this version: preparing the database template (initdb and the migrations, once; this takes a while)',
        ]);
        assert.ok(
          said.includes('svc: creating the demo tenant, its owner and its keys (development, first start)'),
          result.stderr,
        );
      } else {
        assert.match(said[0] ?? '', /^svc: connecting to PostgreSQL at [^ ]+ \(DATABASE_URL\)$/);
      }
      assert.doesNotMatch(result.stdout, /svc listening on/);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
