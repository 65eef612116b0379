import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { MODULES } from '../../src/app.ts';
import type { ModuleManifest } from '../../src/core/modules/manifest.ts';
import { ModuleRegistry } from '../../src/core/modules/registry.ts';
import { bearer, connectSession, createApiKey, createTestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { connect, type Era, mcpUrl, ROOM_TOOLS, roomToolNames, toolNames } from './support.ts';

const isUnknownTool = (error: unknown) => (error as { code?: number }).code === -32602;

/** The app's modules, with get_room narrowed to commerce workspaces (no real action is narrowed yet). */
function withCommerceOnlyGetRoom(): ModuleRegistry {
  const narrowed = (m: ModuleManifest): ModuleManifest => ({
    ...m,
    actions: m.actions.map((a) => (a.name === 'get_room' ? { ...a, workspaceTypes: ['commerce'] } : a)),
  });
  return new ModuleRegistry(MODULES.map(narrowed));
}

describe('MCP tool filtering per caller', () => {
  let t: TestApp;
  let url: URL;
  const clients: Client[] = [];
  const client = async (token: string, era: Era = 'legacy') => {
    const c = await connect(url, token, { era });
    clients.push(c);
    return c;
  };

  before(async () => {
    t = await buildTestApp();
    url = await mcpUrl(t);
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t.close();
  });

  test('a disabled module takes its tools away, for listing and for calling', async () => {
    const tenant = await createTestTenant(t);
    const c = await client(tenant.apiKey);
    assert.deepEqual(await roomToolNames(c), ROOM_TOOLS);
    const res = await call(t.app, {
      method: 'PUT',
      url: `/api/console/tenants/${tenant.tenantId}/modules/rooms`,
      headers: bearer(tenant.ownerToken),
      payload: { enabled: false },
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(await roomToolNames(c), []);
    await assert.rejects(c.callTool({ name: 'list_rooms', arguments: {} }), isUnknownTool);
  });

  test('a tool serves only the workspace types it declares', async () => {
    const original = t.app.services.registry;
    t.app.services.registry = withCommerceOnlyGetRoom();
    try {
      const commerce = await createTestTenant(t, { workspaceType: 'commerce' });
      const community = await createTestTenant(t, { workspaceType: 'community' });
      assert.ok((await roomToolNames(await client(commerce.apiKey))).includes('get_room'));
      const other = await client(community.apiKey, 'modern');
      assert.deepEqual(
        await roomToolNames(other),
        ROOM_TOOLS.filter((n) => n !== 'get_room'),
      );
      await assert.rejects(other.callTool({ name: 'get_room', arguments: { roomId: 'x' } }), isUnknownTool);
    } finally {
      t.app.services.registry = original;
    }
  });

  test('an API key sees only the tools its scopes allow', async () => {
    const tenant = await createTestTenant(t);
    const reader = await client(await createApiKey(t, tenant.tenantId, ['rooms:read']));
    assert.deepEqual(await toolNames(reader), ['get_room', 'list_rooms']);
    await assert.rejects(reader.callTool({ name: 'create_room', arguments: {} }), isUnknownTool);
    const outsider = await client(await createApiKey(t, tenant.tenantId, ['events:read']));
    assert.deepEqual(await toolNames(outsider), []);
  });

  test('a session token sees only its modules, and only its room', async () => {
    const tenant = await createTestTenant(t);
    const admin = await client(tenant.apiKey);
    await admin.callTool({ name: 'create_room', arguments: { id: 'stage' } });
    await admin.callTool({ name: 'create_room', arguments: { id: 'backstage' } });

    const presenceOnly = await connectSession(t, tenant.apiKey, { modules: ['presence'] });
    assert.deepEqual(await roomToolNames(await client(presenceOnly.token)), []);

    const inStage = await connectSession(t, tenant.apiKey, { modules: ['rooms'], roomId: 'stage' });
    const session = await client(inStage.token, 'modern');
    assert.deepEqual(await toolNames(session), ['get_room', 'list_rooms']);
    const listed = (await session.callTool({ name: 'list_rooms', arguments: {} })).structuredContent as {
      data: { id: string }[];
    };
    assert.deepEqual(
      listed.data.map((r) => r.id),
      ['stage'],
    );
    const elsewhere = await session.callTool({ name: 'get_room', arguments: { roomId: 'backstage' } });
    assert.equal((elsewhere.structuredContent as { error: string }).error, 'forbidden');
  });
});
