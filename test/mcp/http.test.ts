import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Ajv } from 'ajv';
import { loadConfig } from '../../src/config.ts';
import { createTestTenant, hostedToken, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { connect, mcpUrl, rawRpc } from './support.ts';

const PUBLIC_URL = 'https://api.example.test';

interface ServedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}
interface ManifestTool extends ServedTool {
  module: string;
  access: string;
  confirmation: string;
  workspaceTypes: string[];
}

describe('MCP over plain HTTP, and the discovery documents', () => {
  let t: TestApp;
  let url: URL;
  let tenant: TestTenant;

  before(async () => {
    t = await buildTestApp({ config: { publicUrl: loadConfig({ SVC_PUBLIC_URL: PUBLIC_URL }).publicUrl } });
    url = await mcpUrl(t);
    tenant = await createTestTenant(t);
  });
  after(() => t.close());

  test('a curl-style tools/call with only the spec’s headers answers JSON-RPC 2.0 JSON', async () => {
    const res = await rawRpc(url, tenant.apiKey, {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'list_rooms', arguments: {} },
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(res.json.jsonrpc, '2.0');
    assert.equal(res.json.id, 7);
    const result = res.json.result as { structuredContent: { data: unknown[] }; content: unknown[] };
    assert.deepEqual(result.structuredContent, { data: [], nextCursor: null });
    assert.equal(result.content.length, 1);
  });

  test('initialize and ping work the same way, and X-API-Key is accepted too', async () => {
    const init = await rawRpc(url, tenant.apiKey, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
    });
    const result = init.json.result as { protocolVersion: string; serverInfo: { name: string } };
    assert.equal(result.protocolVersion, '2025-11-25');
    assert.equal(result.serverInfo.name, 'svc');
    const ping = await fetch(url, {
      method: 'POST',
      headers: { 'x-api-key': tenant.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
    });
    assert.deepEqual(await ping.json(), { jsonrpc: '2.0', id: 2, result: {} });
  });

  test('credential errors are HTTP 401 with the spec’s error codes and WWW-Authenticate', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const none = await rawRpc(url, undefined, body);
    assert.equal(none.status, 401);
    assert.equal(none.json.error, 'unauthorized');
    assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer realm="svc"/);

    const badKey = await rawRpc(
      url,
      'svc_test_abcdefghijkl_notarealkeynotarealkeynotarealkeynotarealkey',
      body,
    );
    assert.equal(badKey.status, 401);
    assert.equal(badKey.json.error, 'invalid_api_key');
    assert.match(badKey.headers.get('www-authenticate') ?? '', /error="invalid_token"/);

    const console = await rawRpc(url, await hostedToken(t), body);
    assert.equal(console.status, 401, 'a console JWT is not an MCP credential');
    assert.ok(console.headers.get('www-authenticate'));
  });

  test('protocol errors are JSON-RPC errors', async () => {
    const garbled = await rawRpc(url, tenant.apiKey, '{"jsonrpc": "2.0", "id": 1,');
    assert.equal((garbled.json.error as { code: number }).code, -32700);
    const unknownMethod = await rawRpc(url, tenant.apiKey, { jsonrpc: '2.0', id: 3, method: 'no/such' });
    assert.equal((unknownMethod.json.error as { code: number }).code, -32601);
    const notification = await rawRpc(url, tenant.apiKey, {
      jsonrpc: '2.0',
      method: 'notifications/initialized',
    });
    assert.equal(notification.status, 202);
    const get = await fetch(url, { headers: { authorization: `Bearer ${tenant.apiKey}` } });
    assert.equal(get.status, 405, 'stateless: no server-to-client stream to open');
  });

  test('/.well-known/mcp says where and how to connect', async () => {
    const res = await call(t.app, { method: 'GET', url: '/.well-known/mcp' });
    assert.equal(res.statusCode, 200);
    const doc = res.json<{
      name: string;
      endpoint: string;
      transport: string;
      protocolVersions: string[];
      authentication: { credentials: string[] };
      manifest: string;
      documentation: string;
    }>();
    assert.equal(doc.name, 'svc');
    assert.equal(doc.endpoint, `${PUBLIC_URL}/mcp`);
    assert.equal(doc.transport, 'streamable-http');
    assert.deepEqual(doc.authentication.credentials, ['api_key', 'session_token']);
    assert.equal(doc.manifest, `${PUBLIC_URL}/.well-known/mcp/manifest.json`);
    assert.ok(doc.documentation.startsWith(PUBLIC_URL));
    assert.ok(doc.protocolVersions.includes('2026-07-28') && doc.protocolVersions.includes('2025-11-25'));

    // Every advertised revision is one the server actually speaks.
    for (const version of doc.protocolVersions.filter((v) => v < '2026')) {
      const init = await rawRpc(url, tenant.apiKey, {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
      });
      assert.equal((init.json.result as { protocolVersion: string }).protocolVersion, version);
    }
    const modern = await connect(url, tenant.apiKey, { era: 'modern' });
    await modern.close();
  });

  test('the manifest lists exactly the tools a full-scope key is served, with the same schemas', async () => {
    const res = await call(t.app, { method: 'GET', url: '/.well-known/mcp/manifest.json' });
    const manifest = res.json<{ tools: ManifestTool[] }>();
    const client = await connect(url, tenant.apiKey);
    const served = (await client.listTools()).tools as ServedTool[];
    await client.close();

    const byName = new Map(served.map((tool) => [tool.name, tool]));
    assert.deepEqual(manifest.tools.map((m) => m.name).sort(), [...byName.keys()].sort());
    const ajv = new Ajv({ strict: false });
    for (const entry of manifest.tools) {
      const tool = byName.get(entry.name);
      assert.deepEqual(
        { title: entry.title, description: entry.description, annotations: entry.annotations },
        { title: tool?.title, description: tool?.description, annotations: tool?.annotations },
      );
      assert.deepEqual(entry.inputSchema, tool?.inputSchema, `${entry.name} inputSchema`);
      assert.deepEqual(entry.outputSchema, tool?.outputSchema, `${entry.name} outputSchema`);
      assert.ok(ajv.validateSchema(entry.inputSchema), `${entry.name} input is a JSON Schema`);
      const declared = t.app.services.registry.action(entry.name);
      assert.deepEqual(
        {
          module: entry.module,
          access: entry.access,
          confirmation: entry.confirmation,
          workspaceTypes: entry.workspaceTypes,
        },
        {
          module: declared?.module.name,
          access: declared?.action.access,
          confirmation: declared?.action.confirmation,
          workspaceTypes: declared?.action.workspaceTypes,
        },
      );
    }
    const deleteRoom = manifest.tools.find((m) => m.name === 'delete_room');
    assert.deepEqual(
      [deleteRoom?.module, deleteRoom?.access, deleteRoom?.confirmation],
      ['rooms', 'destructive', 'destructive'],
    );
  });
});
