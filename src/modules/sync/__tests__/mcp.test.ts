import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import * as Y from 'yjs';
import { connect, toolError, toolNames } from '../../../../test/mcp/support.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { syncSuite } from './suites.ts';
import { synced } from './support.ts';

/** An agent reads and edits a room's shared document through MCP while a stock provider is connected. */

// Registered before the suite: the agents close before the instance does.
const clients: Client[] = [];
after(() => Promise.all(clients.map((c) => c.close())));
const s = syncSuite();

async function agent(token: string): Promise<Client> {
  const c = await connect(new URL('/mcp', s.t.baseUrl), token);
  clients.push(c);
  return c;
}

const syncTools = async (c: Client) => (await toolNames(c)).filter((n) => n.includes('document'));

test('MCP: get_document and apply_document_update; the live client receives the agent’s edit', async () => {
  const live = s.open(`${s.tenant.roomId}/mcp`, await s.token());
  await synced(live);
  live.doc.getText('t').insert(0, 'from the editor');

  const c = await agent(s.tenant.apiKey);
  assert.deepEqual(await syncTools(c), ['apply_document_update', 'get_document']);
  await eventually('the agent to read the editor’s text', async () => {
    const read = await c.callTool({
      name: 'get_document',
      arguments: { roomId: s.tenant.roomId, docName: 'mcp' },
    });
    const doc = read.structuredContent as { data: { t?: string } };
    return doc.data.t === 'from the editor';
  });

  const agentDoc = new Y.Doc();
  agentDoc.getMap('notes').set('summary', 'written by an agent');
  const applied = await c.callTool({
    name: 'apply_document_update',
    arguments: {
      roomId: s.tenant.roomId,
      docName: 'mcp',
      update: Buffer.from(Y.encodeStateAsUpdate(agentDoc)).toString('base64'),
    },
  });
  assert.equal(applied.isError, undefined, JSON.stringify(applied.content));
  assert.deepEqual(applied.structuredContent, {
    roomId: s.tenant.roomId,
    docName: 'mcp',
    bytes: Y.encodeStateAsUpdate(agentDoc).byteLength,
  });
  await eventually(
    'the live client to receive the agent’s edit',
    () => live.doc.getMap('notes').get('summary') === 'written by an agent',
  );
});

test('MCP: a read-only grant reads but cannot apply an update; a malformed one changes nothing', async () => {
  const reader = await agent(await s.token({ scopes: ['sync:read'] }));
  assert.deepEqual(await syncTools(reader), ['get_document']);
  const doc = new Y.Doc();
  doc.getText('t').insert(0, 'forged');
  const update = Buffer.from(Y.encodeStateAsUpdate(doc)).toString('base64');
  const refused = toolError(
    await reader.callTool({
      name: 'apply_document_update',
      arguments: { roomId: s.tenant.roomId, docName: 'ro', update },
    }),
  );
  assert.equal(refused.error, 'insufficient_scope');
  assert.match(refused.message, /sync:write/);

  const writer = await agent(s.tenant.apiKey);
  const malformed = toolError(
    await writer.callTool({
      name: 'apply_document_update',
      arguments: {
        roomId: s.tenant.roomId,
        docName: 'ro',
        update: Buffer.from([1, 2, 3, 250]).toString('base64'),
      },
    }),
  );
  assert.equal(malformed.error, 'unprocessable_content');

  const read = await reader.callTool({
    name: 'get_document',
    arguments: { roomId: s.tenant.roomId, docName: 'ro' },
  });
  assert.deepEqual((read.structuredContent as { data: unknown }).data, {});
});
