import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { MODULES } from '../../src/app.ts';
import { DEV_AUDIENCE, DEV_ISSUER } from '../../src/core/auth/dev-issuer.ts';
import { tenantTx } from '../../src/core/db/tenant-tx.ts';
import { bearer, createTestTenant, hostedToken, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { expectError } from './support.ts';

interface TeamEntry {
  status: 'active' | 'pending';
  userId: string | null;
  invitationId: string | null;
  email: string | null;
  role: string;
}

describe('console: tenant setup, keys, team, product keys', () => {
  let t: TestApp;

  before(async () => {
    t = await buildTestApp({ config: { authFailureLimit: 1_000_000 } });
  });
  after(() => t.close());

  const as = (token: string) => ({
    get: (url: string) => call(t.app, { method: 'GET', url, headers: bearer(token) }),
    post: (url: string, payload: Record<string, unknown>) =>
      call(t.app, { method: 'POST', url, headers: bearer(token), payload }),
    patch: (url: string, payload: Record<string, unknown>) =>
      call(t.app, { method: 'PATCH', url, headers: bearer(token), payload }),
    delete: (url: string) => call(t.app, { method: 'DELETE', url, headers: bearer(token) }),
  });

  /** A user with a verified email, signed in once so they exist. */
  async function person(): Promise<{ sub: string; email: string; token: string; userId: string }> {
    const sub = `person-${randomUUID()}`;
    const email = `${sub}@example.test`;
    const token = await hostedToken(t, sub, { email });
    const res = await as(token).get('/api/auth/user');
    assert.equal(res.statusCode, 200, res.body);
    return { sub, email, token, userId: res.json<{ user: { id: string } }>().user.id };
  }

  /** Invites `who` with `role` and lets them sign in, so they are an active member. */
  async function addMember(tenant: TestTenant, role: string) {
    const who = await person();
    const invite = await as(tenant.ownerToken).post(`/api/console/tenants/${tenant.tenantId}/members`, {
      email: who.email,
      role,
    });
    assert.equal(invite.statusCode, 201, invite.body);
    assert.equal((await as(who.token).get('/api/auth/user')).statusCode, 200);
    return who;
  }

  const team = async (tenant: TestTenant) =>
    (await as(tenant.ownerToken).get(`/api/console/tenants/${tenant.tenantId}/members`)).json<{
      data: TeamEntry[];
    }>().data;

  test('tenant setup: the caller becomes owner, every module is enabled, and it lists under "mine"', async () => {
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

  test('team: invite -> pending; that email signs in -> active with the invited role', async () => {
    const tenant = await createTestTenant(t);
    const sub = `invitee-${randomUUID()}`;
    const email = `${sub}@Example.test`;
    const invited = await as(tenant.ownerToken).post(`/api/console/tenants/${tenant.tenantId}/members`, {
      email,
      role: 'developer',
    });
    assert.equal(invited.statusCode, 201, invited.body);
    const pending = (await team(tenant)).find((m) => m.email === email.toLowerCase());
    assert.equal(pending?.status, 'pending');
    assert.equal(pending?.role, 'developer');
    // Invited twice -> conflict.
    expectError(
      await as(tenant.ownerToken).post(`/api/console/tenants/${tenant.tenantId}/members`, {
        email,
        role: 'viewer',
      }),
      409,
      'conflict',
    );

    // The dev issuer marks the email verified; the invitation is accepted on first sign-in.
    const token = await hostedToken(t, sub, { email: email.toLowerCase() });
    const user = await as(token).get('/api/auth/user');
    assert.equal(user.statusCode, 200, user.body);
    assert.deepEqual(
      user
        .json<{ memberships: { tenantId: string; role: string }[] }>()
        .memberships.map((m) => [m.tenantId, m.role]),
      [[tenant.tenantId, 'developer']],
    );
    const active = (await team(tenant)).filter((m) => m.email === email.toLowerCase());
    assert.deepEqual(
      active.map((m) => [m.status, m.role]),
      [['active', 'developer']],
    );
    assert.equal((await as(token).get(`/api/console/tenants/${tenant.tenantId}/api-keys`)).statusCode, 200);
  });

  test('team: an unverified email does not claim an invitation', async () => {
    const tenant = await createTestTenant(t);
    const email = `unverified-${randomUUID()}@example.test`;
    await as(tenant.ownerToken).post(`/api/console/tenants/${tenant.tenantId}/members`, {
      email,
      role: 'admin',
    });
    const dev = t.app.identity.hosted.devIssuer;
    assert.ok(dev !== undefined);
    const token = await new SignJWT({ email, email_verified: false })
      .setProtectedHeader({ alg: 'ES256', kid: dev.kid })
      .setSubject(`mallory-${randomUUID()}`)
      .setIssuer(DEV_ISSUER)
      .setAudience(DEV_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(dev.privateKey);
    const user = await as(token).get('/api/auth/user');
    assert.equal(user.statusCode, 200);
    assert.deepEqual(user.json<{ memberships: unknown[] }>().memberships, []);
    expectError(await as(token).get(`/api/console/tenants/${tenant.tenantId}`), 404, 'not_found');
    assert.equal((await team(tenant)).find((m) => m.email === email)?.status, 'pending');
  });

  test('team: change role; remove; withdraw an invitation', async () => {
    const tenant = await createTestTenant(t);
    const dev = await addMember(tenant, 'developer');
    const url = `/api/console/tenants/${tenant.tenantId}/members/${dev.userId}`;
    assert.equal((await as(tenant.ownerToken).patch(url, { role: 'admin' })).statusCode, 200);
    assert.equal((await team(tenant)).find((m) => m.userId === dev.userId)?.role, 'admin');
    assert.equal((await as(tenant.ownerToken).delete(url)).statusCode, 200);
    assert.equal(
      (await team(tenant)).find((m) => m.userId === dev.userId),
      undefined,
    );
    expectError(await as(dev.token).get(`/api/console/tenants/${tenant.tenantId}`), 404, 'not_found');
    expectError(await as(tenant.ownerToken).delete(url), 404, 'not_found');

    const invited = await as(tenant.ownerToken).post(`/api/console/tenants/${tenant.tenantId}/members`, {
      email: `later-${randomUUID()}@example.test`,
      role: 'viewer',
    });
    const invitationId = invited.json<{ invitationId: string }>().invitationId;
    const withdrawn = await as(tenant.ownerToken).delete(
      `/api/console/tenants/${tenant.tenantId}/invitations/${invitationId}`,
    );
    assert.equal(withdrawn.statusCode, 200);
    assert.equal(
      (await team(tenant)).find((m) => m.invitationId === invitationId),
      undefined,
    );
  });

  test('the last owner can be neither removed nor demoted (409); with two owners either may go', async () => {
    const tenant = await createTestTenant(t);
    const self = `/api/console/tenants/${tenant.tenantId}/members/${tenant.ownerUserId}`;
    expectError(await as(tenant.ownerToken).patch(self, { role: 'admin' }), 409, 'conflict');
    expectError(await as(tenant.ownerToken).delete(self), 409, 'conflict');
    // An admin cannot take the owner away either (forbidden before conflict).
    const admin = await addMember(tenant, 'admin');
    expectError(await as(admin.token).delete(self), 403, 'forbidden');
    expectError(await as(admin.token).patch(self, { role: 'viewer' }), 403, 'forbidden');

    const second = await addMember(tenant, 'owner');
    assert.equal((await as(second.token).patch(self, { role: 'admin' })).statusCode, 200);
    const secondUrl = `/api/console/tenants/${tenant.tenantId}/members/${second.userId}`;
    expectError(await as(second.token).delete(secondUrl), 409, 'conflict');
    const owners = (await team(tenant)).filter((m) => m.role === 'owner' && m.status === 'active');
    assert.deepEqual(
      owners.map((m) => m.userId),
      [second.userId],
    );
  });

  test('an admin cannot grant owner (403 forbidden), by invitation or by role change', async () => {
    const tenant = await createTestTenant(t);
    const admin = await addMember(tenant, 'admin');
    const viewer = await addMember(tenant, 'viewer');
    const invite = await as(admin.token).post(`/api/console/tenants/${tenant.tenantId}/members`, {
      email: `x-${randomUUID()}@example.test`,
      role: 'owner',
    });
    expectError(invite, 403, 'forbidden');
    const promote = await as(admin.token).patch(
      `/api/console/tenants/${tenant.tenantId}/members/${viewer.userId}`,
      {
        role: 'owner',
      },
    );
    expectError(promote, 403, 'forbidden');
    // Below owner, an admin manages the team.
    const ok = await as(admin.token).patch(
      `/api/console/tenants/${tenant.tenantId}/members/${viewer.userId}`,
      {
        role: 'developer',
      },
    );
    assert.equal(ok.statusCode, 200, ok.body);
  });

  test('roles: viewer reads only; developer manages keys but not the team', async () => {
    const tenant = await createTestTenant(t);
    const viewer = await addMember(tenant, 'viewer');
    const developer = await addMember(tenant, 'developer');
    const keys = `/api/console/tenants/${tenant.tenantId}/api-keys`;
    const pks = `/api/console/tenants/${tenant.tenantId}/product-keys`;
    const members = `/api/console/tenants/${tenant.tenantId}/members`;

    for (const url of [keys, pks, members, `/api/console/tenants/${tenant.tenantId}`]) {
      assert.equal((await as(viewer.token).get(url)).statusCode, 200, url);
    }
    const refused = expectError(
      await as(viewer.token).post(keys, { name: 'v', scopes: ['*'] }),
      403,
      'forbidden',
    );
    assert.match(refused.message, /developer/);
    expectError(await as(viewer.token).post(pks, { name: 'v' }), 403, 'forbidden');
    expectError(
      await as(viewer.token).post(members, { email: 'v@example.test', role: 'viewer' }),
      403,
      'forbidden',
    );

    assert.equal((await as(developer.token).post(keys, { name: 'd', scopes: ['*'] })).statusCode, 201);
    assert.equal((await as(developer.token).post(pks, { name: 'd' })).statusCode, 201);
    expectError(
      await as(developer.token).post(members, { email: 'd@example.test', role: 'viewer' }),
      403,
      'forbidden',
    );
    expectError(
      await as(developer.token).patch(`${members}/${viewer.userId}`, { role: 'developer' }),
      403,
      'forbidden',
    );
  });

  test("a non-member gets 404 on every route of another tenant's console, existing or not", async () => {
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
