import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Type } from 'typebox';
import type { Principal } from '../../src/core/auth/principal.ts';
import { actionRefusal } from '../../src/core/modules/access.ts';
import { defineAction, type ModuleManifest } from '../../src/core/modules/manifest.ts';
import type { WorkspaceType } from '../../src/core/tenancy/roles.ts';
import {
  bearer,
  connectSession,
  createApiKey,
  createTestTenant,
  hostedToken,
  type TestTenant,
} from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';

interface CatalogEntry {
  name: string;
  actions: string[];
  eventTypes: string[];
  enabled?: boolean;
  config?: Record<string, unknown>;
}

describe('module catalog, settings and actions', () => {
  let t: TestApp;
  let tenant: TestTenant;

  before(async () => {
    t = await buildTestApp();
    tenant = await createTestTenant(t);
  });
  after(() => t.close());

  const setRooms = (who: TestTenant, body: Record<string, unknown>, token = who.ownerToken) =>
    call(t.app, {
      method: 'PUT',
      url: `/api/console/tenants/${who.tenantId}/modules/rooms`,
      headers: bearer(token),
      payload: body,
    });

  test('catalog without a credential: public metadata only', async () => {
    const res = await call(t.app, { method: 'GET', url: '/v1/modules/catalog' });
    assert.equal(res.statusCode, 200);
    const rooms = res.json<{ data: CatalogEntry[] }>().data.find((m) => m.name === 'rooms');
    assert.ok(rooms);
    assert.deepEqual(rooms.eventTypes, ['room.created', 'room.updated', 'room.deleted']);
    assert.ok(rooms.actions.includes('create_room'));
    assert.equal('enabled' in rooms, false);
    assert.equal('config' in rooms, false);
  });

  test('catalog, actions and console module settings are lists: {data, nextCursor}, a page at a time', async () => {
    /** Every name of a list, read `limit` at a time by following nextCursor. */
    const walk = async (url: string, headers: Record<string, string>, key: 'name' | 'module') => {
      const names: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
        const res = await call(t.app, { method: 'GET', url: `${url}?limit=2${query}`, headers });
        assert.equal(res.statusCode, 200, res.body);
        const page = res.json<{ data: Record<string, string>[]; nextCursor: string | null }>();
        assert.ok(page.data.length <= 2);
        names.push(...page.data.map((entry) => String(entry[key])));
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor !== null);
      return { names, pages };
    };
    const apiKey = bearer(tenant.apiKey);
    const all = (await call(t.app, { method: 'GET', url: '/v1/modules/catalog', headers: apiKey })).json<{
      data: CatalogEntry[];
      nextCursor: string | null;
    }>();
    assert.equal(all.nextCursor, null, 'the whole catalog fits the default page');
    const catalog = await walk('/v1/modules/catalog', apiKey, 'name');
    assert.deepEqual(
      catalog.names,
      all.data.map((m) => m.name),
    );
    assert.ok(catalog.pages > 1);
    const actions = await walk('/v1/actions', apiKey, 'name');
    assert.ok(actions.pages > 1 && actions.names.includes('create_room'));
    assert.equal(new Set(actions.names).size, actions.names.length, 'no action on two pages');
    const settings = await walk(
      `/api/console/tenants/${tenant.tenantId}/modules`,
      bearer(tenant.ownerToken),
      'module',
    );
    assert.deepEqual(settings.names, catalog.names);
    const bad = await call(t.app, { method: 'GET', url: '/v1/actions?cursor=nope', headers: apiKey });
    assert.equal(bad.statusCode, 400);
  });

  test('catalog with a credential: enablement and config with defaults; a bad credential is still refused', async () => {
    const res = await call(t.app, {
      method: 'GET',
      url: '/v1/modules/catalog',
      headers: bearer(tenant.apiKey),
    });
    const rooms = res.json<{ data: CatalogEntry[] }>().data.find((m) => m.name === 'rooms');
    assert.equal(rooms?.enabled, true);
    assert.deepEqual(rooms?.config, { maxRooms: 100000 });
    const bad = await call(t.app, {
      method: 'GET',
      url: '/v1/modules/catalog',
      headers: bearer('svc_live_bad'),
    });
    assert.equal(bad.statusCode, 401);
  });

  test('module config is validated against the module schema', async () => {
    const own = await createTestTenant(t);
    const bad = await setRooms(own, { enabled: true, config: { maxRooms: 0, colour: 'red' } });
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
    const denied = await setRooms(own, { enabled: false }, devToken);
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().error, 'forbidden');
  });

  test('disabling rooms: routes, actions and runtime/connect refuse with module_disabled; enabling restores', async () => {
    const own = await createTestTenant(t);
    const headers = { 'x-api-key': own.apiKey };
    const session = await connectSession(t, own.apiKey, { modules: ['rooms'] });
    assert.equal((await setRooms(own, { enabled: false })).statusCode, 200);

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

    assert.equal((await setRooms(own, { enabled: true })).statusCode, 200);
    assert.equal((await call(t.app, { method: 'GET', url: '/v1/rooms', headers })).statusCode, 200);
  });

  test('an action runs the same verb as its route: same validation, scope and event', async () => {
    const own = await createTestTenant(t);
    const headers = { 'x-api-key': own.apiKey };
    const made = await call(t.app, {
      method: 'POST',
      url: '/v1/actions/create_room',
      headers,
      payload: { arguments: { id: 'via-action', metadata: { tier: 1 } } },
    });
    assert.equal(made.statusCode, 200, made.body);
    assert.equal(made.json<{ result: { id: string } }>().result.id, 'via-action');
    const viaRest = await call(t.app, { method: 'GET', url: '/v1/rooms/via-action', headers });
    assert.deepEqual(viaRest.json(), made.json<{ result: unknown }>().result);

    const events = await call(t.app, { method: 'GET', url: '/v1/events?type=room.created', headers });
    assert.equal(events.json<{ data: { data: { roomId: string } }[] }>().data[0]?.data.roomId, 'via-action');

    const dup = await call(t.app, {
      method: 'POST',
      url: '/v1/actions/create_room',
      headers,
      payload: { arguments: { id: 'via-action' } },
    });
    assert.equal(dup.statusCode, 409);
    const invalid = await call(t.app, {
      method: 'POST',
      url: '/v1/actions/create_room',
      headers,
      payload: { arguments: { id: 'bad id', extra: 1 } },
    });
    assert.equal(invalid.statusCode, 400);
    assert.deepEqual(
      invalid
        .json<{ details: { field: string }[] }>()
        .details.map((d) => d.field)
        .sort(),
      ['/body/arguments/extra', '/body/arguments/id'],
    );
    const unknown = await call(t.app, {
      method: 'POST',
      url: '/v1/actions/launch_rocket',
      headers,
      payload: {},
    });
    assert.equal(unknown.statusCode, 404);

    const readKey = await createApiKey(t, own.tenantId, ['rooms:read']);
    const denied = await call(t.app, {
      method: 'POST',
      url: '/v1/actions/delete_room',
      headers: { 'x-api-key': readKey },
      payload: { arguments: { roomId: 'via-action' } },
    });
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().error, 'insufficient_scope');
    const visible = await call(t.app, {
      method: 'GET',
      url: '/v1/actions',
      headers: { 'x-api-key': readKey },
    });
    assert.deepEqual(
      visible
        .json<{ data: { name: string }[] }>()
        .data.map((a) => a.name)
        .sort(),
      ['get_room', 'list_rooms'],
    );
  });

  test('session tokens see only the actions of their modules and scopes', async () => {
    const session = await connectSession(t, tenant.apiKey, { modules: ['rooms'] });
    const visible = await call(t.app, { method: 'GET', url: '/v1/actions', headers: bearer(session.token) });
    assert.deepEqual(
      visible
        .json<{ data: { name: string }[] }>()
        .data.map((a) => a.name)
        .sort(),
      ['get_room', 'list_rooms'],
    );
    const chatOnly = await connectSession(t, tenant.apiKey, { modules: ['chat'] });
    const refused = await call(t.app, {
      method: 'POST',
      url: '/v1/actions/list_rooms',
      headers: bearer(chatOnly.token),
      payload: {},
    });
    assert.equal(refused.statusCode, 403);
  });

  test('workspace types filter actions', () => {
    const action = defineAction({
      name: 'commerce_only',
      title: 'Commerce only',
      description: 'x',
      input: Type.Object({}),
      output: Type.Object({}),
      scope: 'rooms:read',
      route: 'listRooms',
      credentials: ['api_key', 'session'],
      access: 'read',
      confirmation: 'never',
      workspaceTypes: ['commerce'],
      run: async () => ({}),
    });
    const module = { name: 'rooms', actions: [action] } as unknown as ModuleManifest;
    const principal: Principal = {
      kind: 'api_key',
      tenantId: 'ten_x',
      scopes: ['*'],
      apiKeyId: 'key_x',
      apiKey: { id: 'key_x', name: 'x', prefix: 'x' },
    };
    const tenant = (workspaceType: WorkspaceType, enabled: readonly string[] = ['rooms']) => ({
      isEnabled: (name: string) => enabled.includes(name),
      workspaceType,
    });
    assert.equal(actionRefusal(module, action, { principal, tenant: tenant('commerce') }), undefined);
    assert.equal(
      actionRefusal(module, action, { principal, tenant: tenant('community') })?.code,
      'forbidden',
    );
    assert.equal(
      actionRefusal(module, action, { principal, tenant: tenant('commerce', []) })?.code,
      'module_disabled',
    );
  });
});
