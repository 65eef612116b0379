import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  bearer,
  connectSession,
  createApiKey,
  createTestTenant,
  hostedToken,
  type TestTenant,
} from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';

describe('GET /v1/me for each credential kind', () => {
  let t: TestApp;
  let tenant: TestTenant;

  before(async () => {
    t = await buildTestApp({ config: { authFailureLimit: 1_000_000 } });
    tenant = await createTestTenant(t, { name: 'Me Inc', workspaceType: 'community' });
  });
  after(() => t.close());

  interface Me {
    tenant: { id: string; name: string; workspaceType: string } | null;
    principal: { kind: string; scopes: string[]; modules?: string[]; roomId?: string; expiresAt?: string };
    apiKey?: { id: string; name: string; prefix: string };
    actor?: { id: string; type: string; identityProvider: string };
    user?: { id: string; email: string | null; providerUserId: string };
    memberships?: { tenantId: string; role: string }[];
  }

  test('API key: tenant, principal scopes and the key (id, name, prefix), never its secret', async () => {
    const key = await createApiKey(t, tenant.tenantId, ['rooms:read', 'chat:write']);
    const res = await call(t.app, { method: 'GET', url: '/v1/me', headers: { 'x-api-key': key } });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json<Me>();
    assert.deepEqual(body.tenant, { id: tenant.tenantId, name: 'Me Inc', workspaceType: 'community' });
    assert.deepEqual(body.principal, { kind: 'api_key', scopes: ['rooms:read', 'chat:write'] });
    assert.match(body.apiKey?.id ?? '', /^key_/);
    assert.equal(body.apiKey?.name, 'key rooms:read chat:write');
    assert.equal(key.split('_')[2], body.apiKey?.prefix);
    assert.equal(body.actor, undefined);
    assert.ok(!res.body.includes(key.slice(-43)), 'the secret must not be echoed');
  });

  test('session token: tenant, actor, modules, room, runtime scopes and expiry', async () => {
    const s = await connectSession(t, tenant.apiKey, {
      modules: ['rooms', 'chat'],
      actorId: 'acme:user-7',
      roomId: 'room_lobby',
    });
    const res = await call(t.app, { method: 'GET', url: '/v1/me', headers: bearer(s.token) });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json<Me>();
    assert.equal(body.tenant?.id, tenant.tenantId);
    assert.equal(body.principal.kind, 'session');
    assert.deepEqual(body.principal.modules, ['rooms', 'chat']);
    assert.equal(body.principal.roomId, 'room_lobby');
    assert.deepEqual(body.principal.scopes, ['chat:read', 'chat:write', 'rooms:read']);
    const expiresIn = Date.parse(body.principal.expiresAt ?? '') - Date.now();
    assert.ok(expiresIn > 0 && expiresIn <= t.config.sessionTtlSeconds * 1000, `expiresIn ${expiresIn}`);
    // The same Actor object the connect answer showed (the core Actor: no internal id).
    assert.equal(s.actorId, 'acme:user-7');
    assert.deepEqual(body.actor, { id: 'acme:user-7', type: 'end_user', identityProvider: 'test' });
    assert.equal(body.apiKey, undefined);
  });

  test('hosted JWT: the user and their memberships; the tenant when there is exactly one', async () => {
    const res = await call(t.app, { method: 'GET', url: '/v1/me', headers: bearer(tenant.ownerToken) });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json<Me>();
    assert.equal(body.principal.kind, 'hosted_user');
    assert.equal(body.user?.id, tenant.ownerUserId);
    assert.deepEqual(
      body.memberships?.map((m) => [m.tenantId, m.role]),
      [[tenant.tenantId, 'owner']],
    );
    assert.equal(body.tenant?.id, tenant.tenantId);

    const stranger = await hostedToken(t);
    const alone = (await call(t.app, { method: 'GET', url: '/v1/me', headers: bearer(stranger) })).json<Me>();
    assert.equal(alone.tenant, null);
    assert.deepEqual(alone.memberships, []);
  });
});
