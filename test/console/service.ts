import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '../..');
const START_TIMEOUT_MS = 120_000;

/** What the run's service tells the tests (through the environment, which every worker inherits). */
export const SERVICE_URL_ENV = 'SVC_CONSOLE_TEST_URL';
export const OWNER_TOKEN_ENV = 'SVC_CONSOLE_TEST_TOKEN';
/** Its data dir, where the dev issuer's key is (tokens for other users are signed with it). */
export const DATA_DIR_ENV = 'SVC_CONSOLE_TEST_DATA_DIR';

/**
 * The environment of the run's service: development (the dev sign-in provider, like `npm start`) on the
 * embedded database in a data dir of its own, any free port, webhooks to loopback receivers allowed, and
 * short webhook retries so a failing endpoint dead-letters within seconds.
 */
function serviceEnv(dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SVC_ENV: 'development',
    SVC_DATA_DIR: path.join(dir, 'data'),
    SVC_CONSOLE_DIR: path.join(dir, 'console'),
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'warn',
    SVC_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost',
    SVC_WEBHOOK_RETRY_SCHEDULE_MS: '500,1000,2000',
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  delete env.SVC_PUBLIC_URL;
  return env;
}

/** The console as it is now, built into the run's folder (others may rebuild console/dist meanwhile). */
async function buildConsole(outDir: string): Promise<void> {
  const vite = await import('vite');
  await vite.build({
    configFile: path.join(ROOT, 'console/vite.config.ts'),
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true },
  });
}

function waitForListening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => fail(`did not listen within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(new Error(`the console tests' service ${why}:\n${output}`));
    };
    const read = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-20_000);
      const url = /svc listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url !== undefined) {
        clearTimeout(timer);
        resolve(url);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => fail(`exited (${code})`));
  });
}

/** Playwright's global setup: build, start the service, sign a token for the demo owner; returns the teardown. */
export default async function startService(): Promise<() => Promise<void>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-console-test-'));
  await buildConsole(path.join(dir, 'console'));
  const env = serviceEnv(dir);
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/svc.mjs'), 'start'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const url = await waitForListening(child);
    // The demo owner's hosted-auth JWT (what `svc dev-token` prints), for the fixture's tenant setup.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [path.join(ROOT, 'bin/svc.mjs'), 'dev-token', '--ttl', '21600'],
      { cwd: ROOT, env },
    );
    process.env[SERVICE_URL_ENV] = url;
    process.env[OWNER_TOKEN_ENV] = stdout.trim();
    process.env[DATA_DIR_ENV] = env.SVC_DATA_DIR;
    console.log(`console tests: service at ${url} (data in ${dir})`);
  } catch (error) {
    await stop();
    throw error;
  }
  return stop;
}
