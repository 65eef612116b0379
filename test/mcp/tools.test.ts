import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { MODULES } from '../../src/app.ts';
import { ModuleRegistry } from '../../src/core/modules/registry.ts';
import { bearer, createTestTenant, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { connect, type Era, mcpUrl, ROOM_TOOLS, roomToolNames, toolError } from './support.ts';

interface Room {
  id: string;
  name: string | null;
}

describe('MCP tools over Streamable HTTP with the SDK client', () => {
  let t: TestApp;
  let url: URL;
  let tenant: TestTenant;
  const clients: Client[] = [];
  const client = async (token: string, era: Era = 'legacy') => {
    const c = await connect(url, token, { era });
    clients.push(c);
    return c;
  };

  before(async () => {
    t = await buildTestApp();
    url = await mcpUrl(t);
    tenant = await createTestTenant(t);
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t.close();
  });

  for (const era of ['legacy', 'modern'] as const) {
    test(`${era}: tools/list serves the rooms actions with schemas and annotations`, async () => {
      const c = await client(tenant.apiKey, era);
      const { tools } = await c.listTools();
      assert.deepEqual(await roomToolNames(c), ROOM_TOOLS);
      const create = tools.find((x) => x.name === 'create_room');
      assert.equal(create?.title, 'Create a room');
      assert.equal(create?.inputSchema.type, 'object');
      assert.ok(create?.inputSchema.properties?.name, 'the input schema is the action schema');
      assert.equal(create?.outputSchema?.type, 'object');
      assert.deepEqual(create?.annotations, {
        title: 'Create a room',
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      });
      const remove = tools.find((x) => x.name === 'delete_room');
      assert.equal(remove?.annotations?.destructiveHint, true);
      assert.equal(tools.find((x) => x.name === 'list_rooms')?.annotations?.readOnlyHint, true);
      // ping exists in the 2025 revisions; 2026-07-28 clients learn the server from server/discover.
      if (era === 'legacy') await c.ping();
      assert.equal(c.getServerVersion()?.name, 'svc');
    });

    test(`${era}: create_room then list_rooms run the verbs, with structured content and text`, async () => {
      const c = await client(tenant.apiKey, era);
      const created = await c.callTool({ name: 'create_room', arguments: { name: `made over ${era}` } });
      assert.equal(created.isError, undefined);
      const room = created.structuredContent as unknown as Room;
      assert.match(room.id, /^room_/);
      assert.equal(room.name, `made over ${era}`);
      const [block] = created.content as { type: string; text: string }[];
      assert.deepEqual(JSON.parse(block?.text ?? 'null'), room);

      const listed = await c.callTool({ name: 'list_rooms', arguments: {} });
      const page = listed.structuredContent as unknown as { data: Room[] };
      assert.ok(page.data.some((r) => r.id === room.id));
    });
  }

  test('a tool call emits the same event as REST, its trace saying origin mcp', async () => {
    const c = await client(tenant.apiKey);
    const created = await c.callTool({ name: 'create_room', arguments: { name: 'traced' } });
    const room = created.structuredContent as unknown as Room;
    const res = await call(t.app, {
      method: 'GET',
      url: '/v1/events?type=room.created&limit=100',
      headers: bearer(tenant.apiKey),
    });
    const events = res.json<{ data: { data: { roomId?: string }; trace: { origin: string } }[] }>().data;
    const event = events.find((e) => e.data.roomId === room.id);
    assert.equal(event?.trace.origin, 'mcp');
  });

  for (const era of ['legacy', 'modern'] as const) {
    test(`${era}: business errors are isError results carrying the error body as JSON text`, async () => {
      const c = await client(tenant.apiKey, era);
      await c.listTools();
      const missing = toolError(
        await c.callTool({ name: 'get_room', arguments: { roomId: 'no-such-room' } }),
      );
      assert.deepEqual(missing, { error: 'not_found', message: 'room no-such-room not found' });

      const id = `twice-${era}`;
      await c.callTool({ name: 'create_room', arguments: { id } });
      const again = toolError(await c.callTool({ name: 'create_room', arguments: { id } }));
      assert.equal(again.error, 'conflict');

      const invalid = toolError(await c.callTool({ name: 'create_room', arguments: { colour: 'red' } }));
      assert.equal(invalid.error, 'invalid_request');
      assert.equal(invalid.details?.[0]?.field, '/arguments/colour');
    });
  }

  test('an unknown tool is a JSON-RPC invalid-params error, not a result', async () => {
    const c = await client(tenant.apiKey);
    await assert.rejects(c.callTool({ name: 'no_such_tool', arguments: {} }), (error: unknown) => {
      assert.equal((error as { code?: number }).code, -32602);
      assert.match(String(error), /Unknown tool: no_such_tool/);
      return true;
    });
  });

  test('a fault inside a verb is a JSON-RPC internal error that reveals nothing', async () => {
    const original = t.app.services.registry;
    t.app.services.registry = new ModuleRegistry(
      MODULES.map((m) => ({
        ...m,
        actions: m.actions.map((a) =>
          a.name === 'list_rooms'
            ? {
                ...a,
                run: async () => {
                  throw new Error('connection string postgres://secret');
                },
              }
            : a,
        ),
      })),
    );
    try {
      const c = await client(tenant.apiKey);
      await assert.rejects(c.callTool({ name: 'list_rooms', arguments: {} }), (error: unknown) => {
        const { code, data } = error as { code?: number; data?: { requestId?: string } };
        assert.equal(code, -32603);
        assert.doesNotMatch(String(error), /secret/);
        assert.match(data?.requestId ?? '', /^req_/);
        return true;
      });
    } finally {
      t.app.services.registry = original;
    }
  });

  test("tenant A's calls never see tenant B's rooms", async () => {
    const a = await createTestTenant(t);
    const b = await createTestTenant(t);
    const clientA = await client(a.apiKey);
    const clientB = await client(b.apiKey, 'modern');
    const ofB = (await clientB.callTool({ name: 'create_room', arguments: { id: 'shared-name' } }))
      .structuredContent as unknown as Room;
    const listedByA = (await clientA.callTool({ name: 'list_rooms', arguments: {} }))
      .structuredContent as unknown as { data: Room[] };
    assert.deepEqual(listedByA.data, []);
    const fetchedByA = await clientA.callTool({ name: 'get_room', arguments: { roomId: ofB.id } });
    assert.equal(toolError(fetchedByA).error, 'not_found');
    // The same id is free in A: rooms are per tenant.
    const ofA = await clientA.callTool({ name: 'create_room', arguments: { id: 'shared-name' } });
    assert.equal(ofA.isError, undefined);
    assert.deepEqual(await roomToolNames(clientA), ROOM_TOOLS);
  });
});
