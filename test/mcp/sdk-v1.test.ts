import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { bearer, connectSession, createApiKey, createTestTenant, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { connectV1, mcpUrl, toolError } from './support.ts';

/**
 * The v1 SDK client checks any `structuredContent` against the listed tool's `outputSchema`, `isError`
 * results included, and throws -32602 when it does not match: every refusal must still reach its caller.
 */
describe('MCP with the TypeScript SDK v1 client', () => {
  let t: TestApp;
  let url: URL;
  let tenant: TestTenant;
  const clients: ClientV1[] = [];
  /** A v1 client that has listed its tools, as every agent does before calling them. */
  const listedClient = async (token: string) => {
    const c = await connectV1(url, token);
    clients.push(c);
    const { tools } = await c.listTools();
    return { client: c, tools: tools.map((x) => x.name) };
  };
  const setPolicy = async (of: TestTenant, confirm: string) => {
    const res = await call(t.app, {
      method: 'PUT',
      url: `/api/console/tenants/${of.tenantId}/mcp-policy`,
      headers: bearer(of.ownerToken),
      payload: { confirm },
    });
    assert.equal(res.statusCode, 200);
  };

  before(async () => {
    t = await buildTestApp();
    url = await mcpUrl(t);
    tenant = await createTestTenant(t);
    const res = await call(t.app, {
      method: 'POST',
      url: '/v1/rooms',
      headers: bearer(tenant.apiKey),
      payload: { id: 'lobby' },
    });
    assert.equal(res.statusCode, 201);
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t.close();
  });

  test('results it validates pass, and not_found, conflict and bad arguments are isError results', async () => {
    const { client: c, tools } = await listedClient(tenant.apiKey);
    assert.ok(tools.includes('create_room') && tools.includes('get_room'));

    const made = await c.callTool({ name: 'create_room', arguments: { name: 'v1 made this' } });
    assert.equal(made.isError, undefined);
    assert.equal((made.structuredContent as { name: string }).name, 'v1 made this');
    const page = await c.callTool({ name: 'list_rooms', arguments: {} });
    assert.ok((page.structuredContent as { data: unknown[] }).data.length >= 2);

    const missing = toolError(await c.callTool({ name: 'get_room', arguments: { roomId: 'no-such-room' } }));
    assert.equal(missing.error, 'not_found');
    assert.match(missing.message, /no-such-room/);

    const taken = toolError(await c.callTool({ name: 'create_room', arguments: { id: 'lobby' } }));
    assert.equal(taken.error, 'conflict');

    const invalid = toolError(await c.callTool({ name: 'create_room', arguments: { colour: 'red' } }));
    assert.equal(invalid.error, 'invalid_request');
    assert.equal(invalid.details?.[0]?.field, '/arguments/colour');
  });

  test('refusals name the scope or the room the credential lacks', async () => {
    const reader = await listedClient(await createApiKey(t, tenant.tenantId, ['rooms:read']));
    assert.ok(!reader.tools.includes('create_room'));
    const refused = toolError(await reader.client.callTool({ name: 'create_room', arguments: {} }));
    assert.equal(refused.error, 'insufficient_scope');
    assert.match(refused.message, /rooms:write/);

    const inLobby = await connectSession(t, tenant.apiKey, { modules: ['rooms'], roomId: 'lobby' });
    const session = await listedClient(inLobby.token);
    assert.ok(session.tools.includes('get_room'));
    const elsewhere = toolError(
      await session.client.callTool({ name: 'get_room', arguments: { roomId: 'backstage' } }),
    );
    assert.equal(elsewhere.error, 'forbidden');
    assert.match(elsewhere.message, /limited to room lobby/);
  });

  test('human confirmation works from it: confirmation_required, then the approved repeat runs', async () => {
    const confirming = await createTestTenant(t);
    await call(t.app, {
      method: 'POST',
      url: '/v1/rooms',
      headers: bearer(confirming.apiKey),
      payload: { id: 'stage' },
    });
    await setPolicy(confirming, 'all');
    const session = await connectSession(t, confirming.apiKey, { modules: ['rooms'] });
    const { client: c, tools } = await listedClient(session.token);
    assert.ok(tools.includes('get_room'));

    const asked = toolError(await c.callTool({ name: 'get_room', arguments: { roomId: 'stage' } }));
    assert.equal(asked.error, 'confirmation_required');
    assert.equal(asked.argument, '_confirmationToken');
    const token = asked.confirmationToken;
    assert.ok(typeof token === 'string' && token.startsWith('mcpc_'));
    assert.match(asked.message, new RegExp(token));

    const approved = await c.callTool({
      name: 'get_room',
      arguments: { roomId: 'stage', _confirmationToken: token },
    });
    assert.equal(approved.isError, undefined);
    assert.equal((approved.structuredContent as { id: string }).id, 'stage');

    const replayed = toolError(
      await c.callTool({ name: 'get_room', arguments: { roomId: 'stage', _confirmationToken: token } }),
    );
    assert.equal(replayed.error, 'confirmation_required');
    assert.match(replayed.message, /not valid/);
  });

  test('a tool kept for humans tells an API key why it cannot call it', async () => {
    const writer = await listedClient(await createApiKey(t, tenant.tenantId, ['rooms:write']));
    assert.ok(!writer.tools.includes('delete_room'));
    const refused = toolError(
      await writer.client.callTool({ name: 'delete_room', arguments: { roomId: 'lobby' } }),
    );
    assert.equal(refused.error, 'insufficient_scope');
    assert.match(refused.message, /confirmation policy \(destructive\)/);
    assert.match(refused.message, /mcp:unattended/);
    const still = await call(t.app, {
      method: 'GET',
      url: '/v1/rooms/lobby',
      headers: bearer(tenant.apiKey),
    });
    assert.equal(still.statusCode, 200, 'nothing ran');
  });

  test('a tool that exists nowhere is still a JSON-RPC invalid-params error', async () => {
    const { client: c } = await listedClient(tenant.apiKey);
    await assert.rejects(c.callTool({ name: 'no_such_tool', arguments: {} }), (error: unknown) => {
      assert.equal((error as { code?: number }).code, -32602);
      assert.match(String(error), /Unknown tool: no_such_tool/);
      return true;
    });
  });
});
