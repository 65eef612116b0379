import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { MODULES } from '../../src/app.ts';
import type { ModuleManifest } from '../../src/core/modules/manifest.ts';
import { ModuleRegistry } from '../../src/core/modules/registry.ts';
import { bearer, connectSession, createApiKey, createTestTenant, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { connect, type Era, mcpUrl, ROOM_TOOLS, roomToolNames, toolError, toolNames } from './support.ts';

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

  const disableRooms = async (tenant: TestTenant) => {
    const res = await call(t.app, {
      method: 'PUT',
      url: `/api/console/tenants/${tenant.tenantId}/modules/rooms`,
      headers: bearer(tenant.ownerToken),
      payload: { enabled: false },
    });
    assert.equal(res.statusCode, 200);
  };

  test('a disabled module takes its tools away, for listing and for calling, and says so', async () => {
    const tenant = await createTestTenant(t);
    const c = await client(tenant.apiKey);
    assert.deepEqual(await roomToolNames(c), ROOM_TOOLS);
    await disableRooms(tenant);
    assert.deepEqual(await roomToolNames(c), []);
    assert.deepEqual(toolError(await c.callTool({ name: 'list_rooms', arguments: {} })), {
      error: 'module_disabled',
      message: 'the rooms module is disabled for this tenant',
    });
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
      assert.deepEqual(toolError(await other.callTool({ name: 'get_room', arguments: { roomId: 'x' } })), {
        error: 'forbidden',
        message: 'get_room is not available in community workspaces',
      });
    } finally {
      t.app.services.registry = original;
    }
  });

  test('an API key sees only the tools its scopes allow', async () => {
    const tenant = await createTestTenant(t);
    const reader = await client(await createApiKey(t, tenant.tenantId, ['rooms:read']));
    assert.deepEqual(await toolNames(reader), ['get_room', 'list_rooms']);
    assert.deepEqual(toolError(await reader.callTool({ name: 'create_room', arguments: {} })), {
      error: 'insufficient_scope',
      message: 'create_room requires the scope rooms:write',
    });
    const outsider = await client(await createApiKey(t, tenant.tenantId, ['events:read']), 'modern');
    assert.deepEqual(await toolNames(outsider), []);
    const refused = toolError(await outsider.callTool({ name: 'list_rooms', arguments: {} }));
    assert.equal(refused.error, 'insufficient_scope');
    assert.match(refused.message, /rooms:read/);
  });

  test('a session token sees only its modules, and only its room', async () => {
    const tenant = await createTestTenant(t);
    const admin = await client(tenant.apiKey);
    await admin.callTool({ name: 'create_room', arguments: { id: 'stage' } });
    await admin.callTool({ name: 'create_room', arguments: { id: 'backstage' } });

    const presenceOnly = await connectSession(t, tenant.apiKey, { modules: ['presence'] });
    const presenceClient = await client(presenceOnly.token);
    assert.deepEqual(await roomToolNames(presenceClient), []);
    assert.deepEqual(toolError(await presenceClient.callTool({ name: 'list_rooms', arguments: {} })), {
      error: 'insufficient_scope',
      message: 'list_rooms requires the scope rooms:read',
    });

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
    assert.deepEqual(toolError(elsewhere), {
      error: 'forbidden',
      message: 'this session token is limited to room stage',
    });
  });

  test("why a tool is refused depends on the caller's own tenant only, and names no tenant", async () => {
    const a = await createTestTenant(t);
    const b = await createTestTenant(t);
    await disableRooms(a);
    const policy = await call(t.app, {
      method: 'PUT',
      url: `/api/console/tenants/${a.tenantId}/mcp-policy`,
      headers: bearer(a.ownerToken),
      payload: { confirm: 'all' },
    });
    assert.equal(policy.statusCode, 200);

    // B's callers get B's answers: its rooms are on and its policy is the default.
    const fullB = await client(b.apiKey, 'modern');
    assert.equal((await fullB.callTool({ name: 'list_rooms', arguments: {} })).isError, undefined);
    const readerB = await client(await createApiKey(t, b.tenantId, ['rooms:read', 'rooms:write']));
    const refusedB = toolError(await readerB.callTool({ name: 'delete_room', arguments: { roomId: 'x' } }));
    assert.equal(refusedB.error, 'insufficient_scope');
    assert.match(refusedB.message, /policy \(destructive\)/);

    const refusedA = toolError(
      await (await client(a.apiKey)).callTool({ name: 'list_rooms', arguments: {} }),
    );
    assert.equal(refusedA.error, 'module_disabled');
    for (const text of [JSON.stringify(refusedA), JSON.stringify(refusedB)]) {
      assert.ok(!text.includes(a.tenantId) && !text.includes(b.tenantId), 'no tenant id in a refusal');
    }
  });
});
