import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer, createTestTenant } from '../factories.ts';
import { call } from '../helper.ts';
import { consoleSuite } from './console-support.ts';
import { expectError } from './support.ts';

/** A console user on the API-key routes: hosted-auth JWT plus `X-SVC-Tenant`, their membership decides. */
describe('console users act in a tenant on /v1 routes (X-SVC-Tenant)', () => {
  const s = consoleSuite();
  const inTenant = (token: string, tenantId: string) => ({ ...bearer(token), 'x-svc-tenant': tenantId });

  test('an owner creates and lists rooms; the event names the console user as its actor', async () => {
    const tenant = await createTestTenant(s.t);
    const headers = inTenant(tenant.ownerToken, tenant.tenantId);
    const created = await call(s.t.app, {
      method: 'POST',
      url: '/v1/rooms',
      headers,
      payload: { name: 'Lobby' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const room = created.json<{ id: string }>();
    const list = await call(s.t.app, { method: 'GET', url: '/v1/rooms', headers });
    assert.deepEqual(
      list.json<{ data: { id: string }[] }>().data.map((r) => r.id),
      [room.id],
    );
    const events = await call(s.t.app, { method: 'GET', url: '/v1/events?type=room.created', headers });
    assert.equal(events.statusCode, 200, events.body);
    const [event] = events.json<{
      data: { data: { roomId?: string; id?: string }; trace: { actor?: unknown } }[];
    }>().data;
    assert.ok(event, events.body);
    assert.deepEqual(event.trace.actor, { kind: 'user', id: tenant.ownerUserId });

    // The same room is the tenant's: its API key sees it too.
    const byKey = await call(s.t.app, {
      method: 'GET',
      url: `/v1/rooms/${room.id}`,
      headers: bearer(tenant.apiKey),
    });
    assert.equal(byKey.statusCode, 200, byKey.body);
  });

  test('/v1/me names the tenant acted in and the role’s scopes', async () => {
    const tenant = await createTestTenant(s.t);
    const viewer = await s.addMember(tenant, 'viewer');
    const owner = await call(s.t.app, {
      method: 'GET',
      url: '/v1/me',
      headers: inTenant(tenant.ownerToken, tenant.tenantId),
    });
    assert.equal(owner.statusCode, 200, owner.body);
    const body = owner.json<{
      tenant: { id: string } | null;
      principal: { kind: string; scopes: string[] };
    }>();
    assert.equal(body.tenant?.id, tenant.tenantId);
    assert.deepEqual(body.principal, { kind: 'hosted_user', scopes: ['*'] });
    const seen = await call(s.t.app, {
      method: 'GET',
      url: '/v1/me',
      headers: inTenant(viewer.token, tenant.tenantId),
    });
    assert.deepEqual(seen.json<{ principal: { scopes: string[] } }>().principal.scopes, ['*:read']);
  });

  test('a viewer reads but does not write (403 insufficient_scope), through REST and actions alike', async () => {
    const tenant = await createTestTenant(s.t);
    const viewer = await s.addMember(tenant, 'viewer');
    const headers = inTenant(viewer.token, tenant.tenantId);
    assert.equal((await call(s.t.app, { method: 'GET', url: '/v1/rooms', headers })).statusCode, 200);
    expectError(
      await call(s.t.app, { method: 'POST', url: '/v1/rooms', headers, payload: { name: 'x' } }),
      403,
      'insufficient_scope',
    );
    expectError(
      await call(s.t.app, {
        method: 'POST',
        url: '/v1/actions/create_room',
        headers,
        payload: { arguments: {} },
      }),
      403,
      'insufficient_scope',
    );
    const developer = await s.addMember(tenant, 'developer');
    const made = await call(s.t.app, {
      method: 'POST',
      url: '/v1/actions/create_room',
      headers: inTenant(developer.token, tenant.tenantId),
      payload: { arguments: { id: 'by-action' } },
    });
    assert.equal(made.statusCode, 200, made.body);
  });

  test('not a member, or no such tenant: the same 403; a removed member is refused at the next request', async () => {
    const tenant = await createTestTenant(s.t);
    const stranger = await s.person();
    const theirs = expectError(
      await call(s.t.app, {
        method: 'GET',
        url: '/v1/rooms',
        headers: inTenant(stranger.token, tenant.tenantId),
      }),
      403,
      'forbidden',
    );
    const missing = 'ten_00000000000000000000000000';
    const none = expectError(
      await call(s.t.app, { method: 'GET', url: '/v1/rooms', headers: inTenant(stranger.token, missing) }),
      403,
      'forbidden',
    );
    assert.equal(none.message.replace(missing, 'T'), theirs.message.replace(tenant.tenantId, 'T'));

    const member = await s.addMember(tenant, 'developer');
    const headers = inTenant(member.token, tenant.tenantId);
    assert.equal((await call(s.t.app, { method: 'GET', url: '/v1/rooms', headers })).statusCode, 200);
    const removed = await s
      .as(tenant.ownerToken)
      .delete(`/api/console/tenants/${tenant.tenantId}/members/${member.userId}`);
    assert.ok(removed.statusCode === 200 || removed.statusCode === 204, removed.body);
    expectError(await call(s.t.app, { method: 'GET', url: '/v1/rooms', headers }), 403, 'forbidden');
  });

  test('the header is refused where it means nothing, and its absence says what to send', async () => {
    const tenant = await createTestTenant(s.t);
    const noHeader = expectError(
      await call(s.t.app, { method: 'GET', url: '/v1/rooms', headers: bearer(tenant.ownerToken) }),
      401,
      'unauthorized',
    );
    assert.match(noHeader.message, /X-SVC-Tenant/);
    // With an API key: the key already names its tenant.
    expectError(
      await call(s.t.app, {
        method: 'GET',
        url: '/v1/rooms',
        headers: { ...bearer(tenant.apiKey), 'x-svc-tenant': tenant.tenantId },
      }),
      400,
      'invalid_request',
    );
    // On a console route: the path names the tenant.
    expectError(
      await call(s.t.app, {
        method: 'GET',
        url: `/api/console/tenants/${tenant.tenantId}/api-keys`,
        headers: inTenant(tenant.ownerToken, tenant.tenantId),
      }),
      400,
      'invalid_request',
    );
    expectError(
      await call(s.t.app, { method: 'GET', url: '/v1/rooms', headers: inTenant(tenant.ownerToken, 'acme') }),
      400,
      'invalid_request',
    );
  });

  test('a long-lived connection of a console user is held while they are a member (recheck)', async () => {
    const tenant = await createTestTenant(s.t);
    const member = await s.addMember(tenant, 'developer');
    const identity = s.t.app.identity;
    const user = await identity.verify('hosted_user', member.token);
    assert.equal(user.kind, 'hosted_user');
    if (user.kind !== 'hosted_user') return;
    const acting = await identity.actInTenant(user, tenant.tenantId);
    await identity.recheck(acting, member.token);
    const removed = await s
      .as(tenant.ownerToken)
      .delete(`/api/console/tenants/${tenant.tenantId}/members/${member.userId}`);
    assert.ok(removed.statusCode === 200 || removed.statusCode === 204, removed.body);
    await assert.rejects(identity.recheck(acting, member.token), { code: 'forbidden' });
    // Without a tenant (console routes), the JWT alone still holds.
    await identity.recheck(user, member.token);
  });
});
