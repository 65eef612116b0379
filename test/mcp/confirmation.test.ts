import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { ManualClock } from '../../src/core/clock.ts';
import { bearer, connectSession, createApiKey, createTestTenant, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { type ClientOptions, connect, mcpUrl, toolError, toolNames } from './support.ts';

interface ConfirmationRequired {
  error: 'confirmation_required';
  confirmationToken: string;
  message: string;
}

const errorOf = (result: object) => toolError(result).error;
const confirmationOf = (result: object) => toolError(result) as unknown as ConfirmationRequired;

describe('MCP human confirmation', () => {
  const clock = new ManualClock(Date.now());
  let t: TestApp;
  let url: URL;
  const clients: Client[] = [];
  const client = async (token: string, options: ClientOptions = {}) => {
    const c = await connect(url, token, options);
    clients.push(c);
    return c;
  };
  const setPolicy = (tenant: TestTenant, confirm: string) =>
    call(t.app, {
      method: 'PUT',
      url: `/api/console/tenants/${tenant.tenantId}/mcp-policy`,
      headers: bearer(tenant.ownerToken),
      payload: { confirm },
    });
  /** A tenant with room `lobby`, whose policy makes every tool (reads too) need a human. */
  const confirmAllTenant = async () => {
    const tenant = await createTestTenant(t);
    await (await client(tenant.apiKey)).callTool({ name: 'create_room', arguments: { id: 'lobby' } });
    assert.equal((await setPolicy(tenant, 'all')).statusCode, 200);
    return tenant;
  };

  before(async () => {
    t = await buildTestApp({ clock });
    url = await mcpUrl(t);
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t.close();
  });

  test('the console policy defaults to destructive and takes a closed set of values', async () => {
    const tenant = await createTestTenant(t);
    const path = `/api/console/tenants/${tenant.tenantId}/mcp-policy`;
    const read = await call(t.app, { method: 'GET', url: path, headers: bearer(tenant.ownerToken) });
    assert.deepEqual(read.json(), { confirm: 'destructive', updatedAt: null });
    assert.equal((await setPolicy(tenant, 'sometimes')).statusCode, 400);
    const written = await setPolicy(tenant, 'writes');
    assert.equal(written.json().confirm, 'writes');
    const again = await call(t.app, { method: 'GET', url: path, headers: bearer(tenant.ownerToken) });
    assert.equal(again.json().confirm, 'writes');
    const stranger = await createTestTenant(t);
    const other = await call(t.app, { method: 'GET', url: path, headers: bearer(stranger.ownerToken) });
    assert.equal(other.statusCode, 404);
    const meddling = await call(t.app, {
      method: 'PUT',
      url: path,
      headers: bearer(stranger.ownerToken),
      payload: { confirm: 'required_only' },
    });
    assert.equal(meddling.statusCode, 404);
    const unchanged = await call(t.app, { method: 'GET', url: path, headers: bearer(tenant.ownerToken) });
    assert.equal(unchanged.json().confirm, 'writes');
  });

  test('delete_room is hidden from a plain server key and runs for an unattended one', async () => {
    const tenant = await createTestTenant(t);
    const plain = await client(await createApiKey(t, tenant.tenantId, ['rooms:read', 'rooms:write']));
    assert.ok(!(await toolNames(plain)).includes('delete_room'));
    await plain.callTool({ name: 'create_room', arguments: { id: 'doomed' } });
    const refused = toolError(await plain.callTool({ name: 'delete_room', arguments: { roomId: 'doomed' } }));
    assert.deepEqual(refused, {
      error: 'insufficient_scope',
      message:
        "this tenant's MCP confirmation policy (destructive) requires a person to approve each call of " +
        'delete_room, and an API key cannot ask one: call it with a session token, or with an API key that ' +
        'holds the scope mcp:unattended',
    });

    const unattendedKey = await createApiKey(t, tenant.tenantId, ['rooms:write', 'mcp:unattended']);
    const unattended = await client(unattendedKey, { era: 'modern' });
    assert.ok((await toolNames(unattended)).includes('delete_room'));
    const deleted = await unattended.callTool({ name: 'delete_room', arguments: { roomId: 'doomed' } });
    assert.deepEqual(deleted.structuredContent, { id: 'doomed', deleted: true });

    // A tenant that confirms only what modules require lets the plain key delete too.
    assert.equal((await setPolicy(tenant, 'required_only')).statusCode, 200);
    assert.ok((await toolNames(plain)).includes('delete_room'));
  });

  test('a session token gets a one-time token, runs with it once, never without it', async () => {
    const tenant = await confirmAllTenant();
    const session = await connectSession(t, tenant.apiKey, { modules: ['rooms'] });
    const c = await client(session.token);
    const { tools } = await c.listTools();
    assert.ok(tools.find((x) => x.name === 'get_room')?.inputSchema.properties?._confirmationToken);

    const asked = await c.callTool({ name: 'get_room', arguments: { roomId: 'lobby' } });
    const request = confirmationOf(asked);
    assert.equal(request.error, 'confirmation_required');
    assert.match(request.confirmationToken, /^mcpc_/);

    const withOtherArgs = await c.callTool({
      name: 'get_room',
      arguments: { roomId: 'elsewhere', _confirmationToken: request.confirmationToken },
    });
    assert.equal(errorOf(withOtherArgs), 'confirmation_required', 'bound to the arguments');
    const byAnotherActor = await client(
      (await connectSession(t, tenant.apiKey, { modules: ['rooms'] })).token,
    );
    const stolen = await byAnotherActor.callTool({
      name: 'get_room',
      arguments: { roomId: 'lobby', _confirmationToken: request.confirmationToken },
    });
    assert.equal(errorOf(stolen), 'confirmation_required', 'bound to the actor');

    const approved = await c.callTool({
      name: 'get_room',
      arguments: { roomId: 'lobby', _confirmationToken: request.confirmationToken },
    });
    assert.equal(approved.isError, undefined);
    assert.equal((approved.structuredContent as { id: string }).id, 'lobby');

    const replayed = await c.callTool({
      name: 'get_room',
      arguments: { roomId: 'lobby', _confirmationToken: request.confirmationToken },
    });
    assert.equal(errorOf(replayed), 'confirmation_required', 'single use');
    assert.match(confirmationOf(replayed).message, /not valid/);
  });

  test('a confirmation token expires', async () => {
    const tenant = await confirmAllTenant();
    const c = await client((await connectSession(t, tenant.apiKey, { modules: ['rooms'] })).token);
    const asked = await c.callTool({ name: 'list_rooms', arguments: {} });
    const { confirmationToken } = confirmationOf(asked);
    clock.advance(5 * 60_000 + 1);
    const late = await c.callTool({
      name: 'list_rooms',
      arguments: { _confirmationToken: confirmationToken },
    });
    assert.equal(errorOf(late), 'confirmation_required');
  });

  test('a 2026-07-28 client with elicitation is asked, and the call runs once the user approves', async () => {
    const tenant = await confirmAllTenant();
    const session = await connectSession(t, tenant.apiKey, { modules: ['rooms'] });
    const questions: string[] = [];
    const c = await client(session.token, { era: 'modern', answer: { action: 'accept' }, questions });
    const result = await c.callTool({ name: 'get_room', arguments: { roomId: 'lobby' } });
    assert.equal(result.isError, undefined);
    assert.equal((result.structuredContent as { id: string }).id, 'lobby');
    assert.equal(questions.length, 1);
    assert.match(questions[0] ?? '', /get_room/);
  });

  test('a declined elicitation runs nothing', async () => {
    const tenant = await confirmAllTenant();
    const session = await connectSession(t, tenant.apiKey, { modules: ['rooms'] });
    for (const answer of [{ action: 'decline' }, { action: 'accept', approve: false }] as const) {
      const c = await client(session.token, { era: 'modern', answer });
      const result = await c.callTool({ name: 'get_room', arguments: { roomId: 'lobby' } });
      assert.equal(errorOf(result), 'confirmation_declined');
    }
  });

  test('a 2026-07-28 client without elicitation falls back to the token', async () => {
    const tenant = await confirmAllTenant();
    const c = await client((await connectSession(t, tenant.apiKey, { modules: ['rooms'] })).token, {
      era: 'modern',
    });
    const asked = await c.callTool({ name: 'get_room', arguments: { roomId: 'lobby' } });
    const { error, confirmationToken } = confirmationOf(asked);
    assert.equal(error, 'confirmation_required');
    const approved = await c.callTool({
      name: 'get_room',
      arguments: { roomId: 'lobby', _confirmationToken: confirmationToken },
    });
    assert.equal((approved.structuredContent as { id: string }).id, 'lobby');
  });
});
