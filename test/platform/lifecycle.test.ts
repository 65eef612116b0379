import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

/**
 * The real `svc` process, the way `npm start` runs it: embedded database in a fresh data dir, a free port,
 * signals. Waits are bounded only to turn a hang into a failure; they assert nothing about speed.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/svc.mjs');
const HANG_MS = 90_000;

// Every process this file starts, killed on the way out whatever happened to the test.
const children = new Set<ChildProcess>();
function killLeftovers(): void {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
process.once('exit', killLeftovers);

interface Service {
  child: ChildProcess;
  startupMs: number;
  baseUrl: string;
  port: number;
  output(): string;
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function serviceEnv(dataDir: string): NodeJS.ProcessEnv {
  // Only what `npm start` on a developer machine would have: no DATABASE_URL, no REDIS_URL.
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    SVC_DATA_DIR: dataDir,
    SVC_ENV: 'development',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'debug',
  };
}

function bounded<T>(promise: Promise<T>, what: string | (() => string)): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    const describe = () => (typeof what === 'string' ? what : what());
    timer = setTimeout(() => reject(new Error(`gave up waiting for ${describe()}`)), HANG_MS);
  });
  return Promise.race([promise, hang]).finally(() => clearTimeout(timer));
}

async function startService(dataDir: string): Promise<Service> {
  const child = spawn(process.execPath, [BIN, 'start'], { cwd: ROOT, env: serviceEnv(dataDir) });
  children.add(child);
  let text = '';
  const waiters: (() => void)[] = [];
  const onData = (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const wake of waiters.splice(0)) wake();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      resolve({ code, signal });
      for (const wake of waiters.splice(0)) wake();
    });
  });
  let done = false;
  exited.then(() => {
    done = true;
  });
  const waitFor = (pattern: RegExp) =>
    bounded(
      new Promise<RegExpMatchArray>((resolve, reject) => {
        const check = () => {
          const match = text.match(pattern);
          if (match !== null) return resolve(match);
          if (done) return reject(new Error(`exited before printing ${pattern}:\n${text}`));
          waiters.push(check);
        };
        check();
      }),
      () => `${pattern} in the output of svc start:\n${text}`,
    );
  const started = Date.now();
  const [, baseUrl = '', portText = ''] = await waitFor(/svc listening on (http:\/\/127\.0\.0\.1:(\d+))/);
  const startupMs = Date.now() - started;
  return { child, startupMs, baseUrl, port: Number(portText), output: () => text, waitFor, exited };
}

function stop(service: Service, signal: NodeJS.Signals = 'SIGTERM') {
  service.child.kill(signal);
  return bounded(service.exited, `svc to exit after ${signal}`);
}

describe('svc process lifecycle (embedded database)', () => {
  let dataDir: string;
  before(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-lifecycle-'));
  });
  after(() => {
    killLeftovers();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('first start on an empty data dir listens, answers /healthz and /readyz, and stops on SIGTERM', async (t) => {
    const service = await startService(dataDir);
    t.diagnostic(`first start (empty data dir) listened after ${service.startupMs} ms`);
    assert.ok(service.port > 0);

    const health = await fetch(`${service.baseUrl}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });
    const ready = await fetch(`${service.baseUrl}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal(((await ready.json()) as { status: string }).status, 'ready');

    // A credentialed request, so shutdown has real work to finish (e.g. recording key usage).
    const credentialsFile = path.join(dataDir, 'dev-credentials.json');
    assert.ok(fs.existsSync(credentialsFile), 'first development start writes dev-credentials.json');
    const { apiKey } = JSON.parse(fs.readFileSync(credentialsFile, 'utf8')) as { apiKey: string };
    const me = await fetch(`${service.baseUrl}/v1/me`, { headers: { 'x-api-key': apiKey } });
    assert.equal(me.status, 200, await me.text());

    const second = spawnSync(process.execPath, [BIN, 'start'], {
      cwd: ROOT,
      env: serviceEnv(dataDir),
      encoding: 'utf8',
      timeout: HANG_MS,
    });
    assert.equal(second.status, 1, 'a second process on the same data dir is refused');
    // The owner says its PID when it answers in time; a refusal without it names "another process".
    assert.match(second.stderr, /is in use by (process \d+|another process); stop it or set SVC_DATA_DIR/);

    const { code, signal } = await stop(service);
    assert.equal(signal, null);
    assert.equal(code, 0, service.output());
    assert.match(service.output(), /"msg":"stopped"/);
    assert.doesNotMatch(service.output(), /"level":50/, 'nothing logged at error level');
    assert.equal(fs.existsSync(path.join(dataDir, 'pglite.lock')), false, 'the data dir lock is released');
  });

  let restarted: Service | undefined;

  test('a second start on the same data dir reuses the data', async (t) => {
    const credentialsFile = path.join(dataDir, 'dev-credentials.json');
    const credentialsBefore = fs.readFileSync(credentialsFile, 'utf8');
    const { apiKey } = JSON.parse(credentialsBefore) as { apiKey: string };

    const service = await startService(dataDir);
    restarted = service;
    t.diagnostic(`second start (existing data dir) listened after ${service.startupMs} ms`);
    assert.equal((await fetch(`${service.baseUrl}/healthz`)).status, 200);
    // The key only verifies if its row survived the restart: a fresh database would answer 401.
    const me = await fetch(`${service.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${apiKey}` } });
    assert.equal(me.status, 200, await me.text());
    assert.equal(
      fs.readFileSync(credentialsFile, 'utf8'),
      credentialsBefore,
      'the demo tenant is not recreated',
    );
  });

  test('SIGTERM during an in-flight request lets it finish, refuses new connections, then exits 0', async () => {
    const service = restarted;
    assert.ok(service !== undefined, 'needs the restarted service');

    // A request whose body is still arriving when the signal comes: headers now, the rest later.
    const body = JSON.stringify({ probe: 'in-flight' });
    const socket = net.connect(service.port, '127.0.0.1');
    let response = '';
    socket.on('data', (chunk: Buffer) => {
      response += chunk.toString('utf8');
    });
    const socketClosed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      [
        'POST /v1/lifecycle-probe HTTP/1.1',
        'Host: 127.0.0.1',
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'X-Request-Id: in-flight-1',
        '',
        body.slice(0, 5),
      ].join('\r\n'),
    );
    await service.waitFor(/"requestId":"in-flight-1"[^\n]*"msg":"incoming request"/);

    service.child.kill('SIGTERM');
    await service.waitFor(/"msg":"stopping: finishing in-flight requests"/);
    // Depending on how far the close has got: the port is closed, or the request is turned away.
    const late = await fetch(`${service.baseUrl}/healthz`).then(
      (res) => res.status,
      () => 'refused',
    );
    assert.ok(late === 'refused' || late === 503, `a new request while stopping got ${late}`);
    assert.equal(service.child.exitCode, null, 'still running while a request is in flight');

    // Not ending our side: the server must close the connection itself once it has answered.
    socket.write(body.slice(5));
    await bounded(socketClosed, 'the in-flight response');
    const [head = '', payload = ''] = response.split('\r\n\r\n');
    assert.match(head, /^HTTP\/1\.1 404 /, response);
    assert.match(head, /\r\nx-request-id: in-flight-1\r\n/i);
    assert.match(head, /\r\nconnection: close\r\n/i, 'the connection ends with the answer');
    assert.deepEqual(JSON.parse(payload), {
      error: 'not_found',
      message: 'no route POST /v1/lifecycle-probe',
      requestId: 'in-flight-1',
    });

    const { code, signal } = await bounded(service.exited, 'svc to exit after the in-flight request');
    assert.equal(signal, null);
    assert.equal(code, 0, service.output());
    assert.doesNotMatch(service.output(), /shutdown deadline passed/, 'no connection had to be cut');
    assert.doesNotMatch(service.output(), /"level":50/, 'nothing logged at error level');
  });

  test('after the restarts, `svc migrate` on the data dir finds nothing to do', () => {
    const migrate = spawnSync(process.execPath, [BIN, 'migrate'], {
      cwd: ROOT,
      env: serviceEnv(dataDir),
      encoding: 'utf8',
      timeout: HANG_MS,
    });
    assert.equal(migrate.status, 0, migrate.stderr);
    assert.equal(migrate.stdout.trim(), 'migrations: up to date');
  });
});
