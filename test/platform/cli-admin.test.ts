import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tenantSetup } from '../../src/app.ts';
import { createTenant } from '../../src/core/tenancy/tenants.ts';
import { bearer, hostedToken } from '../factories.ts';
import { buildTestApp, call, TEST_ENCRYPTION_KEY, type TestApp } from '../helper.ts';

/**
 * The first credential without a hosted identity provider (issue 28, item 18): `svc tenants create` and
 * `svc api-keys create` run as an operator runs them, against the embedded database in a temporary
 * SVC_DATA_DIR (or the PostgreSQL server when DATABASE_URL is set), then the production start of
 * docs/operations.md answers a request made with the printed key. Waits are bounded only to turn a hang
 * into a failure.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/svc.mjs');
const HANG_MS = 300_000;

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

let dataDir: string;
before(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-admin-'));
});
after(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    SVC_DATA_DIR: dataDir,
    SVC_ENV: 'development',
    ...(process.env.DATABASE_URL === undefined ? {} : { DATABASE_URL: process.env.DATABASE_URL }),
    ...extra,
  };
}

/** Spawned, not spawnSync: nothing here may block this thread while a child works. */
function svc(args: string[], extra: Record<string, string> = {}): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: env(extra) });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
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

describe('svc tenants create / svc api-keys create', () => {
  test('a mistake in the flags is said, with the usage, and exits 2 before anything is written', async () => {
    const cases: [string[], RegExp][] = [
      [['tenants', 'create', '--name', 'Acme'], /^svc tenants create: --owner-email is required\n/],
      [
        ['tenants', 'create', '--name', 'Acme', '--owner-email', 'not-an-address'],
        /^svc tenants create: --owner-email 'not-an-address' is not an email address\n/,
      ],
      [
        ['tenants', 'create', '--nmae', 'Acme', '--owner-email', 'a@example.com'],
        /^svc tenants create: unknown option --nmae; the options are --name, --owner-email, --workspace-type, --json\n/,
      ],
      [['api-keys', 'create', '--tenant', 'ten_x'], /^svc api-keys create: --scopes is required\n/],
      [
        ['api-keys', 'create', '--tenant', 'ten_x', '--scopes', 'rooms:read,rooms:raed'],
        /^svc api-keys create: unknown scope rooms:raed in --scopes; known scopes: \*, rooms:read, rooms:write, /,
      ],
      [['api-keys', 'create', '--tenant'], /^svc api-keys create: --tenant needs a value\n/],
    ];
    // One at a time: each loads the service's modules, seconds of CPU on a busy machine.
    for (const [args, expected] of cases) {
      const run = await svc(args);
      assert.equal(run?.status, 2, `${args.join(' ')}: ${run?.stdout}${run?.stderr}`);
      assert.match(run?.stderr ?? '', expected, args.join(' '));
      assert.match(run?.stderr ?? '', /\n\nUsage: svc (tenants|api-keys) create /);
      assert.equal(run?.stdout, '');
    }
    assert.deepEqual(fs.readdirSync(dataDir), [], 'no database was made for a mistake');
    const unknownVerb = await svc(['tenants', 'delete']);
    assert.equal(unknownVerb.status, 2);
    assert.equal(unknownVerb.stderr, "svc: unknown command 'tenants delete'; try 'svc tenants create'\n");
  });

  test('the production recipe: a tenant, a key printed once, the production start, a request with the key', async () => {
    const tenantRun = await svc([
      'tenants',
      'create',
      '--name',
      'Acme',
      '--owner-email',
      'Ops@Example.com',
      '--json',
    ]);
    assert.equal(tenantRun.status, 0, tenantRun.stderr);
    const tenant = JSON.parse(tenantRun.stdout) as Record<string, unknown>;
    assert.match(String(tenant.id), /^ten_/);
    assert.equal(tenant.name, 'Acme');
    assert.equal(tenant.workspaceType, 'commerce');
    assert.equal(tenant.ownerEmail, 'ops@example.com');
    const tenantId = String(tenant.id);

    const unknownTenant = await svc([
      'api-keys',
      'create',
      '--tenant',
      'ten_nobody',
      '--scopes',
      'rooms:read',
    ]);
    assert.equal(unknownTenant.status, 1, unknownTenant.stdout);
    assert.equal(
      unknownTenant.stderr,
      "svc: no tenant ten_nobody (--tenant); 'svc tenants create' makes one\n",
    );

    const text = await svc([
      'api-keys',
      'create',
      '--tenant',
      tenantId,
      '--scopes',
      'rooms:read, rooms:write',
    ]);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`^API key created for tenant ${tenantId} \\(Acme\\)\\n`));
    assert.match(text.stdout, /\n {2}scopes {3}rooms:read, rooms:write\n/);
    const secret = text.stdout.match(/\n {2}(svc_live_\S+)\n/)?.[1];
    assert.ok(secret !== undefined, text.stdout);

    const json = await svc(['api-keys', 'create', '--tenant', tenantId, '--scopes', '*', '--json']);
    assert.equal(json.status, 0, json.stderr);
    const key = JSON.parse(json.stdout) as Record<string, unknown>;
    assert.equal(key.tenantId, tenantId);
    assert.deepEqual(key.scopes, ['*']);
    assert.match(String(key.key), /^svc_live_/);
    assert.match(String(key.id), /^key_/);

    // docs/operations.md's production start (SVC_ENV=production: no demo tenant, no development issuer).
    // On a PostgreSQL shared with other test files, their signing keys are stored under the tests' key.
    const encryptionKey = TEST_ENCRYPTION_KEY;
    const server = spawn(process.execPath, [BIN, 'start'], {
      cwd: ROOT,
      env: env({
        SVC_ENV: 'production',
        SVC_ENCRYPTION_KEY: encryptionKey,
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'warn',
      }),
    });
    children.add(server);
    let output = '';
    server.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    server.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const exited = new Promise((resolve) => server.once('exit', resolve));
    try {
      const deadline = Date.now() + HANG_MS;
      let base: string | undefined;
      while (base === undefined) {
        base = output.match(/svc listening on (http:\/\/\S+)/)?.[1];
        if (server.exitCode !== null) throw new Error(`svc start exited:\n${output}`);
        if (Date.now() > deadline) throw new Error(`gave up waiting for svc start:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      for (const apiKey of [secret, String(key.key)]) {
        const me = await fetch(`${base}/v1/me`, { headers: { authorization: `Bearer ${apiKey}` } });
        assert.equal(me.status, 200, await me.clone().text());
        assert.equal(((await me.json()) as { tenant?: { id?: string } }).tenant?.id, tenantId);
      }
      const rooms = await fetch(`${base}/v1/rooms`, { headers: { authorization: `Bearer ${secret}` } });
      assert.equal(rooms.status, 200, await rooms.text());
    } finally {
      server.kill('SIGTERM');
      await exited;
    }
  });
});

describe('a tenant created for an owner email', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(async () => {
    await t.close();
  });

  test('the address becomes its owner at its first console sign-in with the email verified', async () => {
    const email = `owner-${randomUUID()}@example.com`;
    const tenant = await createTenant(
      { db: t.db, clock: t.app.services.clock },
      { name: 'By email', workspaceType: 'sandbox', ownerEmail: email.toUpperCase() },
      tenantSetup(),
    );
    const token = await hostedToken(t, `sub-${randomUUID()}`, { email });
    const mine = await call(t.app, { method: 'GET', url: '/api/console/tenants', headers: bearer(token) });
    assert.equal(mine.statusCode, 200, mine.body);
    const entry = mine.json<{ data: { id: string; role: string }[] }>().data.find((d) => d.id === tenant.id);
    assert.equal(entry?.role, 'owner');
  });
});
