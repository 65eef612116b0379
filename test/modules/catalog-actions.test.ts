import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Type } from 'typebox';
import type { Principal } from '../../src/core/auth/principal.ts';
import { actionRefusal } from '../../src/core/modules/access.ts';
import { defineAction, type ModuleManifest } from '../../src/core/modules/manifest.ts';
import type { WorkspaceType } from '../../src/core/tenancy/roles.ts';
import { bearer, connectSession, createApiKey, createTestTenant } from '../factories.ts';
import { call } from '../helper.ts';
import { appSuite } from '../support/suite.ts';

describe('module actions', () => {
  const s = appSuite();

  test('an action runs the same verb as its route: same validation, scope and event', async () => {
    const { t } = s;
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
    const { t, tenant } = s;
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
