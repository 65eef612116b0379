import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MODULES } from '../../src/app.ts';
import { tenantTx } from '../../src/core/db/tenant-tx.ts';
import { bearer, createTestTenant } from '../factories.ts';
import { call } from '../helper.ts';
import { consoleSuite } from './console-support.ts';
import { expectError } from './support.ts';

describe('console: tenant setup, keys, product keys', () => {
  const s = consoleSuite();
  const { as, person, team } = s;

  test('tenant setup: the caller becomes owner, every module is enabled, and it lists under "mine"', async () => {
    const t = s.t;
    const me = await person();
    const created = await as(me.token).post('/api/console/tenants', {
      name: 'Acme',
      workspaceType: 'commerce',
    });
    assert.equal(created.statusCode, 201, created.body);
    const tenant = created.json<{ id: string; name: string; workspaceType: string; role: string }>();
    assert.match(tenant.id, /^ten_[0-9a-z]{26}$/);
    assert.deepEqual([tenant.name, tenant.workspaceType, tenant.role], ['Acme', 'commerce', 'owner']);

    const mine = (await as(me.token).get('/api/console/tenants')).json<{
      data: { id: string; role: string }[];
    }>();
    assert.deepEqual(
      mine.data.map((m) => [m.id, m.role]),
      [[tenant.id, 'owner']],
    );
    const one = await as(me.token).get(`/api/console/tenants/${tenant.id}`);
    assert.equal(one.statusCode, 200);
    const enabled = await tenantTx(t.db, { tenantId: tenant.id }, (tx) =>
      tx.query<{ module: string }>('select module from tenant_modules where enabled order by module'),
    );
    assert.deepEqual(
      enabled.rows.map((r) => r.module),
      MODULES.map((m) => m.name).sort(),
    );
    // Someone else's list does not show it.
    const stranger = await person();
    const theirs = (await as(stranger.token).get('/api/console/tenants')).json<{ data: unknown[] }>();
    assert.deepEqual(theirs.data, []);
  });

  test('tenant setup validation -> 400', async () => {
    const me = await person();
    expectError(
      await as(me.token).post('/api/console/tenants', { name: '', workspaceType: 'commerce' }),
      400,
      'invalid_request',
    );
    expectError(
      await as(me.token).post('/api/console/tenants', { name: 'X', workspaceType: 'bank' }),
      400,
      'invalid_request',
    );
  });

  test('API keys: the secret once at creation; the list never shows it or its hash; revoke', async () => {
    const t = s.t;
    const tenant = await createTestTenant(t);
    const base = `/api/console/tenants/${tenant.tenantId}/api-keys`;
    const created = await as(tenant.ownerToken).post(base, {
      name: 'backend',
      scopes: ['rooms:read', 'sessions:manage'],
    });
    assert.equal(created.statusCode, 201, created.body);
    const key = created.json<{ id: string; key: string; prefix: string; scopes: string[] }>();
    assert.match(key.key, /^svc_live_[0-9a-z]{12}_[A-Za-z0-9_-]{43}$/);
    assert.equal(key.key.split('_')[2], key.prefix);
    assert.deepEqual(key.scopes, ['rooms:read', 'sessions:manage']);

    const list = await as(tenant.ownerToken).get(base);
    assert.equal(list.statusCode, 200);
    // Everything after the prefix: the secret's own alphabet has '_' (a tail after its last '_' could be
    // a character or two, found in any list by chance).
    const secret = key.key.slice(`svc_live_${key.prefix}_`.length);
    assert.equal(secret.length, 43);
    assert.ok(!list.body.includes(secret), 'the list leaks the secret');
    const hashHex = (await import('node:crypto')).createHash('sha256').update(key.key).digest();
    assert.ok(
      !list.body.includes(hashHex.toString('hex')) && !list.body.includes(hashHex.toString('base64')),
    );
    const entry = list.json<{ data: Record<string, unknown>[] }>().data.find((k) => k.id === key.id);
    assert.ok(entry !== undefined);
    assert.deepEqual(Object.keys(entry).sort(), [
      'createdAt',
      'expiresAt',
      'id',
      'lastUsedAt',
      'name',
      'prefix',
      'revokedAt',
      'scopes',
    ]);

    const revoked = await as(tenant.ownerToken).delete(`${base}/${key.id}`);
    assert.equal(revoked.statusCode, 200);
    assert.ok(!revoked.body.includes(secret));
    const after = (await as(tenant.ownerToken).get(base)).json<{
      data: { id: string; revokedAt: string | null }[];
    }>();
    assert.ok(after.data.find((k) => k.id === key.id)?.revokedAt !== null);
    // Unknown scope and unknown key.
    const bad = expectError(
      await as(tenant.ownerToken).post(base, { name: 'x', scopes: ['rooms:fly'] }),
      400,
      'invalid_request',
    );
    assert.equal(bad.details?.[0]?.code, 'unknown_scope');
    expectError(
      await as(tenant.ownerToken).delete(`${base}/key_00000000000000000000000000`),
      404,
      'not_found',
    );
  });

  test('product keys: create (pk_...), list, revoke', async () => {
    const t = s.t;
    const tenant = await createTestTenant(t);
    const base = `/api/console/tenants/${tenant.tenantId}/product-keys`;
    const created = await as(tenant.ownerToken).post(base, { name: 'storefront' });
    assert.equal(created.statusCode, 201, created.body);
    const pk = created.json<{ id: string; key: string; name: string; revokedAt: string | null }>();
    assert.match(pk.key, /^pk_/);
    assert.equal(pk.revokedAt, null);
    const list = (await as(tenant.ownerToken).get(base)).json<{ data: { id: string; key: string }[] }>();
    assert.deepEqual(
      list.data.map((k) => [k.id, k.key]),
      [[pk.id, pk.key]],
    );
    const revoked = await as(tenant.ownerToken).delete(`${base}/${pk.id}`);
    assert.equal(revoked.statusCode, 200);
    assert.ok(revoked.json<{ revokedAt: string | null }>().revokedAt !== null);
    // Another tenant's owner sees none of them and cannot revoke them.
    const other = await createTestTenant(t);
    expectError(await as(other.ownerToken).get(base), 404, 'not_found');
    expectError(await as(other.ownerToken).delete(`${base}/${pk.id}`), 404, 'not_found');
    const otherBase = `/api/console/tenants/${other.tenantId}/product-keys`;
    expectError(await as(other.ownerToken).delete(`${otherBase}/${pk.id}`), 404, 'not_found');
  });

  test("a non-member gets 404 on every route of another tenant's console, existing or not", async () => {
    const t = s.t;
    const a = await createTestTenant(t);
    const b = await createTestTenant(t);
    const routes: [string, string, Record<string, unknown>?][] = [
      ['GET', ''],
      ['GET', '/api-keys'],
      ['POST', '/api-keys', { name: 'x', scopes: ['*'] }],
      ['GET', '/members'],
      ['POST', '/members', { email: 'z@example.test', role: 'viewer' }],
      ['PATCH', `/members/${b.ownerUserId}`, { role: 'viewer' }],
      ['DELETE', `/members/${b.ownerUserId}`],
      ['GET', '/product-keys'],
      ['POST', '/product-keys', { name: 'x' }],
    ];
    const missing = 'ten_00000000000000000000000000';
    for (const [method, suffix, payload] of routes) {
      for (const tenantId of [b.tenantId, missing]) {
        const res = await call(t.app, {
          method: method as 'GET',
          url: `/api/console/tenants/${tenantId}${suffix}`,
          headers: bearer(a.ownerToken),
          ...(payload === undefined ? {} : { payload }),
        });
        expectError(res, 404, 'not_found');
      }
    }
    // Nothing changed on B.
    assert.deepEqual(
      (await team(b)).map((m) => [m.userId, m.role]),
      [[b.ownerUserId, 'owner']],
    );
  });
});
