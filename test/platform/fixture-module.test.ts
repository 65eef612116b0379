import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MODULES } from '../../src/app.ts';
import type { TenantEvent } from '../../src/core/events/types.ts';
import type { ModuleManifest } from '../../src/core/modules/manifest.ts';
import { bearer, connectSession, createApiKey, createTestTenant, type TestTenant } from '../factories.ts';
import { pollsModule } from '../fixtures/polls-module/manifest.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { connect, mcpUrl, toolNames } from '../mcp/support.ts';
import { TestClient } from '../realtime-gateway/client.ts';
import { eventually } from '../support/eventually.ts';
import { withFixture } from '../support/module-tests.ts';
import { oneRoom } from '../support/security-suite.ts';

/** What core did with the module's hooks, per app, so a test can tell that core ran them. */
interface HookLog {
  events: TenantEvent[];
  workerStarted: boolean;
  workerStopped: boolean;
}

/** The polls module with a subscriber and a worker added to its hooks, both writing to `log`. */
function observed(log: HookLog): ModuleManifest {
  return {
    ...pollsModule,
    hooks: (host) => ({
      ...pollsModule.hooks?.(host),
      onEvent: (event) => {
        if (event.type === 'poll.created') log.events.push(event);
      },
      worker: {
        start: () => {
          log.workerStarted = true;
        },
        stop: async () => {
          log.workerStopped = true;
        },
      },
    }),
  };
}

/**
 * A module that is not shipped (test/fixtures/polls-module, the example of docs/contributing.md: its own
 * folder, added to the module list the way app.ts lists the real ones) shows up everywhere core derives
 * from manifests: catalog, actions, MCP tools, OpenAPI, migrations, id prefixes, session scopes, guards,
 * events, hooks and realtime event frames.
 */
describe('a new module plugs in through its manifest alone', () => {
  const log: HookLog = { events: [], workerStarted: false, workerStopped: false };
  let t: TestApp;
  let tenant: TestTenant;
  let roomId: string;

  before(async () => {
    t = await buildTestApp({ modules: withFixture(MODULES, observed(log)), webhookWorker: true });
    tenant = await createTestTenant(t);
    ({ roomId } = await oneRoom(t, tenant));
  });
  after(async () => {
    await t.close();
    assert.equal(log.workerStopped, true, 'its worker is stopped with the app');
  });

  /** Two realtime clients of the tenant: one whose token has the polls module, one whose token has not. */
  async function twoClients(): Promise<[TestClient, TestClient]> {
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 }).catch(() => t.app.server.address());
    const port = typeof address === 'string' ? new URL(address).port : (address as { port: number }).port;
    const url = `ws://127.0.0.1:${port}/v1/realtime`;
    const withPolls = await connectSession(t, tenant.apiKey, { modules: ['rooms', 'polls'] });
    const without = await connectSession(t, tenant.apiKey, { modules: ['rooms', 'chat'] });
    return [await TestClient.connect(url, withPolls.token), await TestClient.connect(url, without.token)];
  }

  const createPoll = (key: string, room: string, question: string) =>
    call(t.app, {
      method: 'POST',
      url: `/v1/rooms/${room}/polls`,
      headers: bearer(key),
      payload: { question, options: ['yes', 'no'] },
    });

  test('its migrations ran, its route works, its event is recorded and its hooks heard it', async () => {
    const { rows } = await t.db.query<{ id: string }>(
      "select id from svc_migrations where id = '0990_polls'",
    );
    assert.equal(rows.length, 1);
    assert.equal(log.workerStarted, true, 'its worker was started with the app');
    const added = await createPoll(tenant.apiKey, roomId, 'Doors at 8?');
    assert.equal(added.statusCode, 201, added.body);
    const poll = added.json<{ id: string; question: string }>();
    assert.equal(poll.question, 'Doors at 8?');
    assert.match(poll.id, /^poll_[0-9a-hjkmnp-tv-z]{26}$/, 'its id has the prefix its manifest declares');
    const listed = await call(t.app, {
      method: 'GET',
      url: `/v1/rooms/${roomId}/polls`,
      headers: bearer(tenant.apiKey),
    });
    assert.deepEqual(
      listed.json<{ data: { id: string }[] }>().data.map((n) => n.id),
      [poll.id],
    );
    const heard = await eventually('the subscriber to hear poll.created', () =>
      log.events.find((e) => e.tenantId === tenant.tenantId),
    );
    assert.equal(heard.type, 'poll.created');
    const events = await call(t.app, {
      method: 'GET',
      url: '/v1/events?type=poll.created',
      headers: bearer(tenant.apiKey),
    });
    assert.ok(events.json<{ data: { type: string }[] }>().data.some((e) => e.type === 'poll.created'));
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
      .data.find((m) => m.name === 'polls');
    assert.deepEqual(entry?.actions, ['list_polls', 'create_poll']);
    assert.deepEqual(entry?.scopes, ['polls:read', 'polls:write']);
    assert.equal(entry?.enabled, true, 'a new tenant starts with it on');
    assert.deepEqual(entry?.config, { maxPollsPerRoom: 100 });

    const actions = await call(t.app, { method: 'GET', url: '/v1/actions', headers: bearer(tenant.apiKey) });
    const names = actions
      .json<{ data: { name: string; module: string }[] }>()
      .data.filter((a) => a.module === 'polls');
    assert.deepEqual(names.map((a) => a.name).sort(), ['create_poll', 'list_polls']);
    const viaAction = await call(t.app, {
      method: 'POST',
      url: '/v1/actions/create_poll',
      headers: bearer(tenant.apiKey),
      payload: { arguments: { roomId, question: 'From an action?', options: ['yes', 'no'] } },
    });
    assert.equal(viaAction.statusCode, 200, viaAction.body);

    const openapi = await call(t.app, { method: 'GET', url: '/openapi.json' });
    const paths = openapi.json<{ paths: Record<string, Record<string, { operationId?: string }>> }>().paths;
    assert.equal(paths['/v1/rooms/{roomId}/polls']?.post?.operationId, 'createPoll');
    assert.equal(paths['/v1/rooms/{roomId}/polls']?.get?.operationId, 'listPolls');
  });

  test('MCP lists its actions as tools and calls them', async () => {
    const client = await connect(await mcpUrl(t), tenant.apiKey);
    try {
      const tools = await toolNames(client);
      assert.ok(tools.includes('create_poll') && tools.includes('list_polls'), tools.join(', '));
      const result = await client.callTool({ name: 'list_polls', arguments: { roomId } });
      assert.notEqual(result.isError, true, JSON.stringify(result));
    } finally {
      await client.close();
    }
  });

  test('sessions carry its session scopes; guards refuse what they must', async () => {
    const session = await connectSession(t, tenant.apiKey, { modules: ['rooms', 'polls'] });
    const me = await call(t.app, { method: 'GET', url: '/v1/me', headers: bearer(session.token) });
    assert.deepEqual(me.json<{ principal: { scopes: string[] } }>().principal.scopes, [
      'polls:read',
      'rooms:read',
    ]);
    assert.equal(
      (await call(t.app, { method: 'GET', url: `/v1/rooms/${roomId}/polls`, headers: bearer(session.token) }))
        .statusCode,
      200,
    );

    const none = await call(t.app, { method: 'GET', url: `/v1/rooms/${roomId}/polls` });
    assert.equal(none.statusCode, 401);
    const readOnly = await createApiKey(t, tenant.tenantId, ['polls:read']);
    const denied = await createPoll(readOnly, roomId, 'no');
    assert.equal(denied.json<{ error: string }>().error, 'insufficient_scope');
    const other = await createTestTenant(t);
    const elsewhere = await createPoll(other.apiKey, roomId, 'not yours');
    assert.equal(elsewhere.statusCode, 404, 'another tenant’s room is not found');
    const otherRoom = await connectSession(t, tenant.apiKey, {
      modules: ['rooms', 'polls'],
      roomId: 'room-b',
    });
    const wrongRoom = await call(t.app, {
      method: 'GET',
      url: `/v1/rooms/${roomId}/polls`,
      headers: bearer(otherRoom.token),
    });
    assert.equal(wrongRoom.json<{ error: string }>().error, 'forbidden');

    const off = await call(t.app, {
      method: 'PUT',
      url: `/api/console/tenants/${other.tenantId}/modules/polls`,
      headers: bearer(other.ownerToken),
      payload: { enabled: false },
    });
    assert.equal(off.statusCode, 200, off.body);
    const disabled = await createPoll(other.apiKey, 'any-room', 'off');
    assert.equal(disabled.json<{ error: string }>().error, 'module_disabled');
  });

  test('its realtime frame and join field work for tokens with the module, and are refused to others', async () => {
    const [a, b] = await twoClients();
    try {
      assert.equal((await createPoll(tenant.apiKey, roomId, 'for the frame')).statusCode, 201);
      const polls = await call(t.app, {
        method: 'GET',
        url: `/v1/rooms/${roomId}/polls`,
        headers: bearer(tenant.apiKey),
      });
      const expected = polls.json<{ data: { id: string }[] }>().data.map((n) => n.id);
      for (const client of [a, b]) client.socket.send(JSON.stringify({ type: 'join', room: roomId }));
      const joinedA = await a.waitFor((f) => f.type === 'joined', 'a joined');
      const joinedB = await b.waitFor((f) => f.type === 'joined', 'b joined');
      assert.equal(joinedA.polls, expected.length, 'the module adds its field to joined');
      assert.equal(joinedB.polls, undefined, 'not for a token without the module');

      a.socket.send(JSON.stringify({ type: 'polls.list', room: roomId, ref: 'n1' }));
      const listed = await a.waitFor((f) => f.ref === 'n1', 'the polls.list answer');
      assert.equal(listed.type, 'polls.list');
      assert.deepEqual(
        (listed.polls as { id: string }[]).map((n) => n.id),
        expected,
      );
      b.socket.send(JSON.stringify({ type: 'polls.list', room: roomId, ref: 'n2' }));
      const refused = await b.waitFor((f) => f.ref === 'n2', 'the refusal');
      assert.deepEqual([refused.type, refused.code], ['error', 'insufficient_scope']);
      a.socket.send(JSON.stringify({ type: 'polls.list', room: roomId, extra: 1, ref: 'n3' }));
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
      assert.equal((await createPoll(tenant.apiKey, roomId, 'live')).statusCode, 201);
      const frame = await eventually('the poll.created event frame', () =>
        a.frames.find((f) => f.type === 'event' && (f.event as { type?: string }).type === 'poll.created'),
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
        !b.frames.some((f) => f.type === 'event' && (f.event as { type?: string }).type === 'poll.created'),
      );
    } finally {
      a.socket.close();
      b.socket.close();
    }
  });
});
