import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tenantSetup } from '../../src/app.ts';
import { DEV_CREDENTIALS_FILE, ensureDemoTenant } from '../../src/core/tenancy/demo.ts';
import { bearer } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/svc.mjs');

/** `svc dev-token` as a user runs it: a separate process that shares only SVC_DATA_DIR. */
function devToken(dataDir: string, args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [BIN, 'dev-token', ...args], {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      SVC_DATA_DIR: dataDir,
      SVC_ENV: 'development',
      ...env,
    },
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout.trim(), stderr: result.stderr };
}

/**
 * The development contract (ARCHITECTURE §9): first start writes dev-credentials.json with four names
 * outside scripts read, and `svc dev-token` prints a console token the same data dir's service accepts.
 * Always on a fresh embedded database: the demo is created only when no tenant exists.
 */
describe('dev credentials', () => {
  let t: TestApp;
  let dir: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-demo-'));
    t = await buildTestApp({ config: { databaseUrl: undefined, dataDir: dir, env: 'development' } });
  });
  after(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('ensureDemoTenant writes {tenantId, apiKey, productKey, userId} and the key works', async () => {
    const first = await ensureDemoTenant(t.db, dir, tenantSetup(), t.app.services.clock);
    assert.equal(first.created, true);
    const file = path.join(dir, DEV_CREDENTIALS_FILE);
    const written = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
    assert.deepEqual(Object.keys(written).sort(), ['apiKey', 'productKey', 'tenantId', 'userId']);
    assert.deepEqual(written, first.credentials);
    assert.equal(fs.statSync(file).mode & 0o077, 0, 'credentials file must not be readable by others');

    const me = await call(t.app, { method: 'GET', url: '/v1/me', headers: bearer(written.apiKey ?? '') });
    assert.equal(me.statusCode, 200, me.body);
    const body = me.json<{ tenant: { id: string }; principal: { scopes: string[] } }>();
    assert.equal(body.tenant.id, written.tenantId);
    assert.deepEqual(body.principal.scopes, ['*']);
    assert.match(written.productKey ?? '', /^pk_/);

    const again = await ensureDemoTenant(t.db, dir, tenantSetup(), t.app.services.clock);
    assert.equal(again.created, false);
    assert.deepEqual(again.credentials, written);
  });

  test('`svc dev-token` prints a JWT for the demo owner that the service accepts', async () => {
    const written = JSON.parse(fs.readFileSync(path.join(dir, DEV_CREDENTIALS_FILE), 'utf8')) as Record<
      string,
      string
    >;
    const out = devToken(dir, []);
    assert.equal(out.status, 0, out.stderr);
    assert.match(out.stdout, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    const res = await call(t.app, { method: 'GET', url: '/api/auth/user', headers: bearer(out.stdout) });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json<{ user: { id: string }; memberships: { tenantId: string; role: string }[] }>();
    assert.equal(body.user.id, written.userId);
    assert.deepEqual(
      body.memberships.map((m) => [m.tenantId, m.role]),
      [[written.tenantId, 'owner']],
    );
  });

  test('`svc dev-token --sub x --email y` signs in user x with verified email y', async () => {
    const out = devToken(dir, ['--sub', 'cli-user', '--email', 'cli@example.test', '--ttl', '120']);
    assert.equal(out.status, 0, out.stderr);
    const res = await call(t.app, { method: 'GET', url: '/api/auth/user', headers: bearer(out.stdout) });
    assert.equal(res.statusCode, 200, res.body);
    const user = res.json<{ user: { providerUserId: string; email: string } }>().user;
    assert.deepEqual([user.providerUserId, user.email], ['cli-user', 'cli@example.test']);
  });

  test('`svc dev-token` is refused in production', () => {
    assert.equal(devToken(dir, [], { SVC_ENV: 'production' }).status, 2);
  });
});
