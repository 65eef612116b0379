import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer, connectSession, createTestTenant, hostedToken } from '../factories.ts';
import { call } from '../helper.ts';
import { appSuite } from '../support/suite.ts';
import { type CatalogEntry, setRooms } from './catalog-support.ts';

describe('module settings: validated, changed by admins, disabling refuses the module', () => {
  const s = appSuite();

  test('module config is validated against the module schema', async () => {
    const { t } = s;
    const own = await createTestTenant(t);
    const bad = await setRooms(t, own, { enabled: true, config: { maxRooms: 0, colour: 'red' } });
    assert.equal(bad.statusCode, 400);
    const fields = bad
      .json<{ details: { field: string }[] }>()
      .details.map((d) => d.field)
      .sort();
    assert.deepEqual(fields, ['/body/config/colour', '/body/config/maxRooms']);
    const unknown = await call(t.app, {
      method: 'PUT',
      url: `/api/console/tenants/${own.tenantId}/modules/teleport`,
      headers: bearer(own.ownerToken),
      payload: { enabled: true },
    });
    assert.equal(unknown.statusCode, 404);
    const list = await call(t.app, {
      method: 'GET',
      url: `/api/console/tenants/${own.tenantId}/modules`,
      headers: bearer(own.ownerToken),
    });
    assert.equal(list.statusCode, 200);
    assert.deepEqual(
      list
        .json<{ data: { module: string; enabled: boolean; config: unknown }[] }>()
        .data.find((m) => m.module === 'rooms'),
      {
        ...list.json<{ data: { module: string }[] }>().data.find((m) => m.module === 'rooms'),
        enabled: true,
        config: { maxRooms: 100000 },
      },
    );
  });

  test('only admins and owners change module settings', async () => {
    const { t } = s;
    const own = await createTestTenant(t);
    const devSub = `dev-${Date.now()}`;
    const devEmail = `${devSub}@example.test`;
    const invite = await call(t.app, {
      method: 'POST',
      url: `/api/console/tenants/${own.tenantId}/members`,
      headers: bearer(own.ownerToken),
      payload: { email: devEmail, role: 'developer' },
    });
    assert.equal(invite.statusCode, 201);
    const devToken = await hostedToken(t, devSub, { email: devEmail });
    await call(t.app, { method: 'GET', url: '/api/auth/user', headers: bearer(devToken) });
    const denied = await setRooms(t, own, { enabled: false }, devToken);
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().error, 'forbidden');
  });

  test('disabling rooms: routes, actions and runtime/connect refuse with module_disabled; enabling restores', async () => {
    const { t } = s;
    const own = await createTestTenant(t);
    const headers = { 'x-api-key': own.apiKey };
    const session = await connectSession(t, own.apiKey, { modules: ['rooms'] });
    assert.equal((await setRooms(t, own, { enabled: false })).statusCode, 200);

    const route = await call(t.app, { method: 'GET', url: '/v1/rooms', headers });
    assert.equal(route.statusCode, 403);
    assert.equal(route.json().error, 'module_disabled');
    const write = await call(t.app, { method: 'POST', url: '/v1/rooms', headers, payload: {} });
    assert.equal(write.json().error, 'module_disabled');
    const bySession = await call(t.app, { method: 'GET', url: '/v1/rooms', headers: bearer(session.token) });
    assert.equal(bySession.json().error, 'module_disabled');
    const action = await call(t.app, { method: 'POST', url: '/v1/actions/list_rooms', headers, payload: {} });
    assert.equal(action.statusCode, 403);
    assert.equal(action.json().error, 'module_disabled');
    const listed = await call(t.app, { method: 'GET', url: '/v1/actions', headers });
    assert.equal(
      listed.json<{ data: { name: string }[] }>().data.some((a) => a.name === 'list_rooms'),
      false,
    );
    const connect = await call(t.app, {
      method: 'POST',
      url: '/v1/runtime/connect',
      headers,
      payload: { modules: ['rooms'], actor: { type: 'end_user', id: 'test:u1', identityProvider: 'test' } },
    });
    assert.equal(connect.statusCode, 403);
    assert.equal(connect.json().error, 'module_disabled');
    const catalog = await call(t.app, { method: 'GET', url: '/v1/modules/catalog', headers });
    assert.equal(
      catalog.json<{ data: CatalogEntry[] }>().data.find((m) => m.name === 'rooms')?.enabled,
      false,
    );

    assert.equal((await setRooms(t, own, { enabled: true })).statusCode, 200);
    assert.equal((await call(t.app, { method: 'GET', url: '/v1/rooms', headers })).statusCode, 200);
  });
});
