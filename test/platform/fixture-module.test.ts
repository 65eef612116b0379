import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MODULES } from '../../src/app.ts';
import { bearer, connectSession, createApiKey, createTestTenant, type TestTenant } from '../factories.ts';
import { type NotesHookLog, notesModule } from '../fixtures/notes-module/manifest.ts';
import { notesSecurity } from '../fixtures/notes-module/security.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { connect, mcpUrl, toolNames } from '../mcp/support.ts';
import { TestClient } from '../realtime-gateway/client.ts';
import { eventually } from '../support/eventually.ts';
import { oneRoom, securitySuite } from '../support/security-suite.ts';

/**
 * A module that is not shipped (test/fixtures/notes-module: its own folder, added to the module list the
 * way app.ts lists the real ones) shows up everywhere core derives from manifests: catalog, actions, MCP
 * tools, OpenAPI, migrations, session scopes, guards, events, hooks and realtime event frames.
 */
describe('a new module plugs in through its manifest alone', () => {
  const log: NotesHookLog = { events: [], workerStarted: false, workerStopped: false };
  let t: TestApp;
  let tenant: TestTenant;
  let roomId: string;

  before(async () => {
    t = await buildTestApp({ modules: [...MODULES, notesModule(log)], webhookWorker: true });
    tenant = await createTestTenant(t);
    ({ roomId } = await oneRoom(t, tenant));
  });
  after(async () => {
    await t.close();
    assert.equal(log.workerStopped, true, 'its worker is stopped with the app');
  });

  /** Two realtime clients of the tenant: one whose token has the notes module, one whose token has not. */
  async function twoClients(): Promise<[TestClient, TestClient]> {
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 }).catch(() => t.app.server.address());
    const port = typeof address === 'string' ? new URL(address).port : (address as { port: number }).port;
    const url = `ws://127.0.0.1:${port}/v1/realtime`;
    const withNotes = await connectSession(t, tenant.apiKey, { modules: ['rooms', 'notes'] });
    const without = await connectSession(t, tenant.apiKey, { modules: ['rooms', 'chat'] });
    return [await TestClient.connect(url, withNotes.token), await TestClient.connect(url, without.token)];
  }

  const addNote = (key: string, room: string, text: string) =>
    call(t.app, { method: 'POST', url: `/v1/rooms/${room}/notes`, headers: bearer(key), payload: { text } });

  test('its migrations ran, its route works, its event is recorded and its hooks heard it', async () => {
    const { rows } = await t.db.query<{ id: string }>(
      "select id from svc_migrations where id = '0990_fixture_notes'",
    );
    assert.equal(rows.length, 1);
    assert.equal(log.workerStarted, true, 'its worker was started with the app');
    const added = await addNote(tenant.apiKey, roomId, 'doors open at 8');
    assert.equal(added.statusCode, 201, added.body);
    const note = added.json<{ id: string; text: string }>();
    assert.equal(note.text, 'doors open at 8');
    const listed = await call(t.app, {
      method: 'GET',
      url: `/v1/rooms/${roomId}/notes`,
      headers: bearer(tenant.apiKey),
    });
    assert.deepEqual(
      listed.json<{ data: { id: string }[] }>().data.map((n) => n.id),
      [note.id],
    );
    const heard = await eventually('the subscriber to hear note.added', () =>
      log.events.find((e) => e.tenantId === tenant.tenantId),
    );
    assert.equal(heard.type, 'note.added');
    const events = await call(t.app, {
      method: 'GET',
      url: '/v1/events?type=note.added',
      headers: bearer(tenant.apiKey),
    });
    assert.ok(events.json<{ data: { type: string }[] }>().data.some((e) => e.type === 'note.added'));
  });

  test('catalog, actions and OpenAPI list it', async () => {
    const catalog = await call(t.app, {
      method: 'GET',
      url: '/v1/modules/catalog',
      headers: bearer(tenant.apiKey),
    });
    const entry = catalog
      .json<{
        data: { name: string; actions: string[]; scopes: string[]; enabled?: boolean; config?: unknown }[];
      }>()
      .data.find((m) => m.name === 'notes');
    assert.deepEqual(entry?.actions, ['list_notes', 'add_note']);
    assert.deepEqual(entry?.scopes, ['notes:read', 'notes:write']);
    assert.equal(entry?.enabled, true, 'a new tenant starts with it on');
    assert.deepEqual(entry?.config, { maxNotesPerRoom: 100 });

    const actions = await call(t.app, { method: 'GET', url: '/v1/actions', headers: bearer(tenant.apiKey) });
    const names = actions
      .json<{ data: { name: string; module: string }[] }>()
      .data.filter((a) => a.module === 'notes');
    assert.deepEqual(names.map((a) => a.name).sort(), ['add_note', 'list_notes']);
    const viaAction = await call(t.app, {
      method: 'POST',
      url: '/v1/actions/add_note',
      headers: bearer(tenant.apiKey),
      payload: { arguments: { roomId, text: 'from an action' } },
    });
    assert.equal(viaAction.statusCode, 200, viaAction.body);

    const openapi = await call(t.app, { method: 'GET', url: '/openapi.json' });
    const paths = openapi.json<{ paths: Record<string, Record<string, { operationId?: string }>> }>().paths;
    assert.equal(paths['/v1/rooms/{roomId}/notes']?.post?.operationId, 'addNote');
    assert.equal(paths['/v1/rooms/{roomId}/notes']?.get?.operationId, 'listNotes');
  });

  test('MCP lists its actions as tools and calls them', async () => {
    const client = await connect(await mcpUrl(t), tenant.apiKey);
    try {
      const tools = await toolNames(client);
      assert.ok(tools.includes('add_note') && tools.includes('list_notes'), tools.join(', '));
      const result = await client.callTool({ name: 'list_notes', arguments: { roomId } });
      assert.notEqual(result.isError, true, JSON.stringify(result));
    } finally {
      await client.close();
    }
  });

  test('sessions carry its session scopes; guards refuse what they must', async () => {
    const session = await connectSession(t, tenant.apiKey, { modules: ['rooms', 'notes'] });
    const me = await call(t.app, { method: 'GET', url: '/v1/me', headers: bearer(session.token) });
    assert.deepEqual(me.json<{ principal: { scopes: string[] } }>().principal.scopes, [
      'notes:read',
      'rooms:read',
    ]);
    assert.equal(
      (await call(t.app, { method: 'GET', url: `/v1/rooms/${roomId}/notes`, headers: bearer(session.token) }))
        .statusCode,
      200,
    );

    const none = await call(t.app, { method: 'GET', url: `/v1/rooms/${roomId}/notes` });
    assert.equal(none.statusCode, 401);
    const readOnly = await createApiKey(t, tenant.tenantId, ['notes:read']);
    const denied = await addNote(readOnly, roomId, 'no');
    assert.equal(denied.json<{ error: string }>().error, 'insufficient_scope');
    const other = await createTestTenant(t);
    const elsewhere = await addNote(other.apiKey, roomId, 'not yours');
    assert.equal(elsewhere.statusCode, 404, 'another tenant’s room is not found');
    const otherRoom = await connectSession(t, tenant.apiKey, {
      modules: ['rooms', 'notes'],
      roomId: 'room-b',
    });
    const wrongRoom = await call(t.app, {
      method: 'GET',
      url: `/v1/rooms/${roomId}/notes`,
      headers: bearer(otherRoom.token),
    });
    assert.equal(wrongRoom.json<{ error: string }>().error, 'forbidden');

    const off = await call(t.app, {
      method: 'PUT',
      url: `/api/console/tenants/${other.tenantId}/modules/notes`,
      headers: bearer(other.ownerToken),
      payload: { enabled: false },
    });
    assert.equal(off.statusCode, 200, off.body);
    const disabled = await addNote(other.apiKey, 'any-room', 'off');
    assert.equal(disabled.json<{ error: string }>().error, 'module_disabled');
  });

  test('its realtime frame and join field work for tokens with the module, and are refused to others', async () => {
    const [a, b] = await twoClients();
    try {
      assert.equal((await addNote(tenant.apiKey, roomId, 'for the frame')).statusCode, 201);
      const notes = await call(t.app, {
        method: 'GET',
        url: `/v1/rooms/${roomId}/notes`,
        headers: bearer(tenant.apiKey),
      });
      const expected = notes.json<{ data: { id: string }[] }>().data.map((n) => n.id);
      for (const client of [a, b]) client.socket.send(JSON.stringify({ type: 'join', room: roomId }));
      const joinedA = await a.waitFor((f) => f.type === 'joined', 'a joined');
      const joinedB = await b.waitFor((f) => f.type === 'joined', 'b joined');
      assert.equal(joinedA.notes, expected.length, 'the module adds its field to joined');
      assert.equal(joinedB.notes, undefined, 'not for a token without the module');

      a.socket.send(JSON.stringify({ type: 'notes.list', room: roomId, ref: 'n1' }));
      const listed = await a.waitFor((f) => f.ref === 'n1', 'the notes.list answer');
      assert.equal(listed.type, 'notes.list');
      assert.deepEqual(
        (listed.notes as { id: string }[]).map((n) => n.id),
        expected,
      );
      b.socket.send(JSON.stringify({ type: 'notes.list', room: roomId, ref: 'n2' }));
      const refused = await b.waitFor((f) => f.ref === 'n2', 'the refusal');
      assert.deepEqual([refused.type, refused.code], ['error', 'insufficient_scope']);
      a.socket.send(JSON.stringify({ type: 'notes.list', room: roomId, extra: 1, ref: 'n3' }));
      assert.equal((await a.waitFor((f) => f.ref === 'n3', 'invalid')).code, 'invalid_frame');
    } finally {
      a.socket.close();
      b.socket.close();
    }
  });

  test('its room events reach realtime clients whose token has the module', async () => {
    const [a, b] = await twoClients();
    try {
      for (const client of [a, b]) client.socket.send(JSON.stringify({ type: 'join', room: roomId }));
      await eventually('both clients to join', () =>
        [a, b].every((c) => c.frames.some((f) => f.type === 'joined')),
      );
      assert.equal((await addNote(tenant.apiKey, roomId, 'live')).statusCode, 201);
      const frame = await eventually('the note.added event frame', () =>
        a.frames.find((f) => f.type === 'event' && (f.event as { type?: string }).type === 'note.added'),
      );
      assert.equal(frame.room, roomId);
      // The other client is in the same room; its token lacks the module, so it never gets the frame.
      await call(t.app, {
        method: 'POST',
        url: `/v1/rooms/${roomId}/messages`,
        headers: bearer(tenant.apiKey),
        payload: { text: 'after', actor: { type: 'agent', id: 'test:x', identityProvider: 'test' } },
      });
      await eventually('the later chat message to reach the other client', () =>
        b.frames.some((f) => f.type === 'chat.message'),
      );
      assert.ok(
        !b.frames.some((f) => f.type === 'event' && (f.event as { type?: string }).type === 'note.added'),
      );
    } finally {
      a.socket.close();
      b.socket.close();
    }
  });
});

/** Its whole security coverage is one registration. */
securitySuite(notesSecurity);
