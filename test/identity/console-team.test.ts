import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { DEV_AUDIENCE, DEV_ISSUER } from '../../src/core/auth/dev-issuer.ts';
import { createTestTenant, hostedToken } from '../factories.ts';
import { consoleSuite } from './console-support.ts';
import { expectError } from './support.ts';

describe('console: team and roles', () => {
  const s = consoleSuite();
  const { as, addMember, team } = s;

  test('team: invite -> pending; that email signs in -> active with the invited role', async () => {
    const t = s.t;
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
    const t = s.t;
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
    const t = s.t;
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
    const t = s.t;
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
    const t = s.t;
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
    const t = s.t;
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
});
