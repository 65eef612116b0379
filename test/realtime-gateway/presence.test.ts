import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer } from '../factories.ts';
import { call } from '../helper.ts';
import { type Frame, TestClient } from './client.ts';
import { sessionToken, tenantWithRoom } from './fixtures.ts';
import { type Instance, startInstance } from './support.ts';

interface MemberFrame {
  actor: { type: string; id: string; identityProvider: string };
  state: Record<string, unknown>;
  connections: number;
}

const memberOf = (frame: Frame) => frame.member as MemberFrame;

let t: Instance;
before(async () => {
  t = await startInstance();
});
after(async () => t.close());

describe('presence over the gateway', () => {
  test('two tabs of one actor joining at the same moment are announced once', async () => {
    const tenant = await tenantWithRoom(t);
    const room = tenant.roomId;
    const watcher = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey));
    await watcher.join(room);
    const actorId = `test:twin-${Date.now()}`;
    const token = await sessionToken(t, tenant.apiKey, { actorId });
    const tabs = await Promise.all([TestClient.connect(t.wsUrl, token), TestClient.connect(t.wsUrl, token)]);
    for (const [i, tab] of tabs.entries())
      tab.send({ type: 'join', room, ref: 'twin', ...(i === 0 ? {} : { presence: { tab: i } }) });
    await Promise.all(tabs.map((tab) => tab.waitFor((f) => f.type === 'joined', 'joined')));
    // Everything the joins published has reached the watcher once its own later frame comes back.
    watcher.send({ type: 'presence', room, state: { settled: true }, ref: 'settle' });
    await watcher.waitForType('presence.update', (f) => memberOf(f).state.settled === true);
    const joins = watcher.of('presence.join').filter((f) => memberOf(f).actor.id === actorId);
    assert.equal(joins.length, 1, 'one presence.join for the actor');
    await Promise.all([...tabs, watcher].map((c) => c.close()));
  });

  test('two connections of one actor are one member with two connections; it leaves with the last', async () => {
    const tenant = await tenantWithRoom(t);
    const room = tenant.roomId;
    const watcher = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey));
    await watcher.join(room);
    const actorId = `test:alice-${Date.now()}`;
    const tabOne = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey, { actorId }));
    const tabTwo = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey, { actorId }), {
      via: 'header',
    });
    await tabOne.join(room, { presence: { status: 'online' } });
    const joined = await tabTwo.join(room);
    const alice = (joined.members as MemberFrame[]).find((m) => m.actor.id === actorId);
    assert.equal(alice?.connections, 2);
    assert.deepEqual(alice?.state, { status: 'online' });

    const rest = await call(t.app, {
      method: 'GET',
      url: `/v1/rooms/${room}/presence`,
      headers: bearer(tenant.apiKey),
    });
    assert.equal(rest.statusCode, 200);
    const listed = rest.json<{ data: MemberFrame[] }>().data;
    assert.equal(listed.length, 2, 'the watcher and alice, not one entry per tab');
    assert.equal(listed.find((m) => m.actor.id === actorId)?.connections, 2);

    await watcher.waitForType('presence.join', (f) => memberOf(f).actor.id === actorId);
    const aliceId = alice?.actor.id;
    await tabOne.close();
    // The actor still has a tab open: no leave; the REST view shows one connection.
    const afterOne = await call(t.app, {
      method: 'GET',
      url: `/v1/rooms/${room}/presence`,
      headers: bearer(tenant.apiKey),
    });
    assert.equal(
      afterOne.json<{ data: MemberFrame[] }>().data.find((m) => m.actor.id === aliceId)?.connections,
      1,
    );
    assert.equal(watcher.of('presence.leave').length, 0);
    await tabTwo.close();
    const leave = await watcher.waitForType('presence.leave');
    assert.deepEqual(leave.actor, { type: 'end_user', id: actorId, identityProvider: 'test' });
    assert.equal(aliceId, actorId, 'members are named by the provider-qualified id');
    assert.equal(
      watcher.of('presence.join').filter((f) => memberOf(f).actor.id === actorId).length,
      1,
      'one join for the actor, not one per tab',
    );
    await watcher.close();
  });

  test('a presence frame updates the shared state; oversized state is refused', async () => {
    const tenant = await tenantWithRoom(t);
    const room = tenant.roomId;
    const a = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey));
    const b = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey));
    await a.join(room);
    await b.join(room);
    a.send({ type: 'presence', room, state: { typingIn: 'thread-1', cursor: 3 } });
    const update = await b.waitForType('presence.update');
    assert.deepEqual(memberOf(update).state, { typingIn: 'thread-1', cursor: 3 });

    a.send({ type: 'presence', room, state: { blob: 'x'.repeat(3000) }, ref: 'big' });
    const refused = await a.waitFor((f) => f.ref === 'big', 'the refusal');
    assert.equal(refused.type, 'error');
    assert.equal(refused.code, 'invalid_request');

    a.send({ type: 'presence', room: 'not-joined-room', state: {}, ref: 'nj' });
    assert.equal((await a.waitFor((f) => f.ref === 'nj', 'not joined')).code, 'not_joined');
    await a.close();
    await b.close();
  });

  test('list_presence action and REST answer 404 for a missing room and 403 for another room', async () => {
    const tenant = await tenantWithRoom(t);
    const missing = await call(t.app, {
      method: 'GET',
      url: '/v1/rooms/no-such-room/presence',
      headers: bearer(tenant.apiKey),
    });
    assert.equal(missing.statusCode, 404);
    const limited = await sessionToken(t, tenant.apiKey, { roomId: 'another-room' });
    const forbidden = await call(t.app, {
      method: 'GET',
      url: `/v1/rooms/${tenant.roomId}/presence`,
      headers: bearer(limited),
    });
    assert.equal(forbidden.statusCode, 403);
    const action = await call(t.app, {
      method: 'POST',
      url: '/v1/actions/list_presence',
      headers: bearer(tenant.apiKey),
      payload: { arguments: { roomId: tenant.roomId } },
    });
    assert.equal(action.statusCode, 200, action.body);
    assert.deepEqual(action.json<{ result: { data: unknown[] } }>().result.data, []);
  });

  test('a token without the presence module joins silently and cannot set presence', async () => {
    const tenant = await tenantWithRoom(t);
    const chatOnly = await TestClient.connect(
      t.wsUrl,
      await sessionToken(t, tenant.apiKey, { modules: ['chat'] }),
    );
    const joined = await chatOnly.join(tenant.roomId);
    assert.deepEqual(joined.members, []);
    chatOnly.send({ type: 'join', room: tenant.roomId, presence: { a: 1 }, ref: 'again' });
    const refused = await chatOnly.waitFor((f) => f.ref === 'again', 'refusal');
    assert.equal(refused.code, 'insufficient_scope');
    const rest = await call(t.app, {
      method: 'GET',
      url: `/v1/rooms/${tenant.roomId}/presence`,
      headers: bearer(tenant.apiKey),
    });
    assert.deepEqual(rest.json<{ data: unknown[] }>().data, []);
    await chatOnly.close();
  });
  test('members are Actor objects, listed a page at a time; no frame or answer holds an internal actor id', async () => {
    const tenant = await tenantWithRoom(t);
    const room = tenant.roomId;
    const ids = ['test:p1', 'test:p2', 'test:p3'];
    const clients: TestClient[] = [];
    for (const actorId of ids) {
      const client = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey, { actorId }));
      await client.join(room, { presence: { who: actorId } });
      clients.push(client);
    }
    const [watcher] = clients;
    assert.ok(watcher !== undefined);
    await watcher.waitForType('presence.join', (f) => memberOf(f).actor.id === 'test:p3');
    const page = (query: string) =>
      call(t.app, {
        method: 'GET',
        url: `/v1/rooms/${room}/presence${query}`,
        headers: bearer(tenant.apiKey),
      });
    const first = await page('?limit=2');
    const firstPage = first.json<{ data: MemberFrame[]; nextCursor: string | null }>();
    assert.deepEqual(
      firstPage.data.map((m) => m.actor),
      ids.slice(0, 2).map((id) => ({ type: 'end_user', id, identityProvider: 'test' })),
    );
    assert.ok(firstPage.nextCursor !== null);
    const second = await page(`?limit=2&cursor=${firstPage.nextCursor}`);
    const secondPage = second.json<{ data: MemberFrame[]; nextCursor: string | null }>();
    assert.deepEqual(
      secondPage.data.map((m) => m.actor.id),
      ['test:p3'],
    );
    assert.equal(secondPage.nextCursor, null);
    await clients[2]?.close();
    const leave = await watcher.waitForType('presence.leave');
    assert.deepEqual(leave.actor, { type: 'end_user', id: 'test:p3', identityProvider: 'test' });
    const { rows } = await t.db.query<{ id: string }>(
      'select id::text as id from actors where tenant_id = $1 and external_id = any($2)',
      [tenant.tenantId, ids],
    );
    assert.equal(rows.length, 3);
    const seen = [
      first.body,
      second.body,
      JSON.stringify(watcher.of('presence.join')),
      JSON.stringify(leave),
    ];
    for (const { id } of rows) for (const text of seen) assert.ok(!text.includes(id), `no ${id} in ${text}`);
    for (const client of clients.slice(0, 2)) await client.close();
  });
});
