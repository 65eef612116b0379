import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { unusedPort } from '../support/ports.ts';

/**
 * What a new user types, run as they run it: `svc start` with SVC_DATA_DIR set, then the banner's "Try it"
 * commands pasted into another shell (which has no SVC_DATA_DIR), from a project that has svc installed.
 * Waits are bounded only to turn a hang into a failure.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/svc.mjs');
const HANG_MS = 90_000;

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

/** A user's project: `npx svc` resolves to this checkout's bin through node_modules/.bin. */
function userProject(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-user-project-'));
  fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"user-project","private":true}\n');
  fs.mkdirSync(path.join(dir, 'node_modules/.bin'), { recursive: true });
  fs.symlinkSync(BIN, path.join(dir, 'node_modules/.bin/svc'));
  return dir;
}

function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, SVC_ENV: 'development', ...extra };
}

describe('a new user: svc start with SVC_DATA_DIR, then the printed commands', () => {
  let project: string;
  let dataDir: string;
  let child: ChildProcess;
  let output = '';

  before(async () => {
    project = userProject();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc data dir-'));
    child = spawn(process.execPath, [BIN, 'start'], {
      cwd: project,
      env: userEnv({ SVC_DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn' }),
    });
    children.add(child);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const deadline = Date.now() + HANG_MS;
    while (!/Try it:\n(.+\n){2}/.test(output)) {
      if (child.exitCode !== null) throw new Error(`svc start exited:\n${output}`);
      if (Date.now() > deadline) throw new Error(`gave up waiting for the banner:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  after(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(project, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('every "Try it" command works as printed, from another shell, and leaves no stray data dir', () => {
    const commands = (output.split('Try it:\n')[1] ?? '')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.startsWith('curl '));
    assert.equal(commands.length, 2, output);
    const [me, user] = commands.map((command) =>
      spawnSync('bash', ['-c', `${command} --silent --show-error --write-out '\\n%{http_code}'`], {
        cwd: project,
        env: userEnv(),
        encoding: 'utf8',
        timeout: HANG_MS,
      }),
    );
    assert.match(me?.stdout ?? '', /\n200$/, `${commands[0]}\n${me?.stdout}${me?.stderr}`);
    assert.match(user?.stdout ?? '', /\n200$/, `${commands[1]}\n${user?.stdout}${user?.stderr}`);
    assert.match(user?.stdout ?? '', /"email":"owner@demo\.local"/);
    assert.equal(fs.existsSync(path.join(project, '.svc-data')), false, 'no ./.svc-data was made');
    // LOG_LEVEL=warn (CI's smoke start): the banner only, no start-up progress lines.
    assert.doesNotMatch(output, /^svc: /m);
  });

  test('PORT=0: the addresses the service publishes name the port it listens on', async () => {
    const base = /svc listening on (http:\/\/\S+)/.exec(output)?.[1];
    assert.ok(base !== undefined, output);
    const document = (await (await fetch(`${base}/openapi.json`)).json()) as { servers: { url: string }[] };
    assert.deepEqual(
      document.servers.map((server) => server.url),
      [base],
    );
  });

  test("`svc dev-token` without the service's data dir says so, and creates nothing", () => {
    const empty = path.join(project, 'not-a-data-dir');
    const result = spawnSync(process.execPath, [BIN, 'dev-token'], {
      cwd: project,
      env: userEnv({ SVC_DATA_DIR: empty }),
      encoding: 'utf8',
      timeout: HANG_MS,
    });
    assert.equal(result.status, 1, result.stdout);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /no development issuer key in .*not-a-data-dir \(SVC_DATA_DIR\)/);
    assert.equal(fs.existsSync(empty), false);
  });
});

describe('an unreachable DATABASE_URL', () => {
  test('svc start and svc migrate name DATABASE_URL and host:port, never the password', async () => {
    const port = await unusedPort();
    const url = `postgres://svc:s3cret-pw@127.0.0.1:${port}/svc`;
    for (const command of ['start', 'migrate']) {
      const result = spawnSync(process.execPath, [BIN, command], {
        env: userEnv({ DATABASE_URL: url, PORT: '0', LOG_LEVEL: 'warn' }),
        cwd: ROOT,
        encoding: 'utf8',
        timeout: HANG_MS,
      });
      assert.equal(result.status, 1, `${command}: ${result.stdout}${result.stderr}`);
      assert.match(
        result.stderr,
        new RegExp(`^svc: DATABASE_URL: cannot use PostgreSQL at 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`),
      );
      assert.doesNotMatch(result.stderr + result.stdout, /s3cret-pw/);
    }
  });
});
