import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/core/db/database.ts';
import { openDatabase } from '../../src/runtime.ts';
import { CLOSE } from '../../src/surfaces/realtime/index.ts';
import { bearer } from '../factories.ts';
import { call, testConfig } from '../helper.ts';
import { eventually } from '../support/eventually.ts';
import { type Frame, TestClient } from './client.ts';
import { postMessage, sessionToken, tenantWithRoom } from './fixtures.ts';
import { type Deployment, deployment, type Instance, startInstance } from './support.ts';

/** A dead instance's members must be gone within this (the production default is 30 s). */
const PRESENCE_TTL_MS = 1500;

let shared: Deployment;
let a: Instance;
let b: Instance;
let ownDb: Database | undefined;

/** Each instance its own PostgreSQL pool when DATABASE_URL is set; one PGlite otherwise (it is in-process). */
async function secondDb(first: Database): Promise<Database> {
  const config = testConfig();
  if (config.databaseUrl === undefined) return first;
  ownDb = await openDatabase(config);
  return ownDb;
}

before(async () => {
  shared = deployment(PRESENCE_TTL_MS);
  a = await startInstance({ deployment: shared });
  b = await startInstance({ deployment: shared, db: await secondDb(a.db) });
});
after(async () => {
  await Promise.all([a.close(), b.close()]);
  await ownDb?.close();
  await shared.cleanup();
});

const memberExternalId = (f: Frame) => (f.member as { actor: { id: string } }).actor.id;

describe(`two instances on one database and one backplane (${process.env.REDIS_URL ? 'Redis' : 'shared in-memory broker'})`, () => {
  test('chat and presence fan out both ways', async () => {
    const tenant = await tenantWithRoom(a);
    const room = tenant.roomId;
    const onA = await TestClient.connect(
      a.wsUrl,
      await sessionToken(a, tenant.apiKey, { actorId: 'test:on-a' }),
    );
    const onB = await TestClient.connect(
      b.wsUrl,
      await sessionToken(b, tenant.apiKey, { actorId: 'test:on-b' }),
    );
    await onA.join(room, { presence: { on: 'a' } });
    await onB.join(room, { presence: { on: 'b' } });
    await onA.waitForType('presence.join', (f) => memberExternalId(f) === 'test:on-b');

    onA.send({ type: 'chat.send', room, text: 'from a', clientId: 'a1' });
    await onB.waitFor(
      (f) => f.type === 'chat.message' && (f.message as { text: string }).text === 'from a',
      'a -> b',
    );
    onB.send({ type: 'chat.send', room, text: 'from b', clientId: 'b1' });
    await onA.waitFor(
      (f) => f.type === 'chat.message' && (f.message as { text: string }).text === 'from b',
      'b -> a',
    );
    await postMessage(b, tenant.apiKey, room, 'rest on b');
    await onA.waitFor(
      (f) => f.type === 'chat.message' && (f.message as { text: string }).text === 'rest on b',
      'rest',
    );
    onB.send({ type: 'typing', room });
    const typing = await onA.waitForType('typing');
    assert.deepEqual(typing.actor, { type: 'end_user', id: 'test:on-b', identityProvider: 'test' });
    assert.equal(onB.of('typing').length, 0, 'typing is not echoed to its sender');

    await onB.close();
    const leave = await onA.waitForType('presence.leave');
    assert.deepEqual(leave.actor, { type: 'end_user', id: 'test:on-b', identityProvider: 'test' });
    await onA.close();
  });

  test('concurrent senders on both instances: one order per room everywhere', async () => {
    const tenant = await tenantWithRoom(a);
    const room = tenant.roomId;
    const clients = await Promise.all(
      [a, b, a, b].map(async (instance, i) =>
        TestClient.connect(
          instance.wsUrl,
          await sessionToken(instance, tenant.apiKey, { actorId: `test:c${i}` }),
        ),
      ),
    );
    for (const client of clients) await client.join(room);
    const rounds = 10;
    const rest: Promise<unknown>[] = [];
    for (let i = 0; i < rounds; i++) {
      for (const [n, client] of clients.entries())
        client.send({ type: 'chat.send', room, text: `${n}.${i}` });
      rest.push(postMessage(i % 2 === 0 ? a : b, tenant.apiKey, room, `rest ${i}`));
    }
    await Promise.all(rest);
    const total = rounds * (clients.length + 1);
    await eventually(
      `${total} messages on every socket`,
      () => clients.every((c) => c.messages(room).length >= total) || undefined,
    );
    const order = clients[0]?.messages(room).map((m) => m.id);
    for (const client of clients) {
      assert.deepEqual(
        client.messages(room).map((m) => m.seq),
        Array.from({ length: total }, (_, i) => i + 1),
      );
      assert.deepEqual(
        client.messages(room).map((m) => m.id),
        order,
      );
    }
    for (const client of clients) await client.close();
  });

  test('an instance that dies leaves no ghosts: its members leave on the other instance within the TTL', async () => {
    const tenant = await tenantWithRoom(a);
    const room = tenant.roomId;
    const watcher = await TestClient.connect(a.wsUrl, await sessionToken(a, tenant.apiKey));
    await watcher.join(room);
    const doomed = await TestClient.connect(
      b.wsUrl,
      await sessionToken(b, tenant.apiKey, { actorId: 'test:doomed' }),
    );
    const joined = await doomed.join(room, { presence: { status: 'here' } });
    const doomedMember = (joined.members as { actor: { id: string } }[]).find(
      (m) => m.actor.id === 'test:doomed',
    );
    assert.ok(doomedMember !== undefined, 'the member is named by its provider-qualified id');
    await watcher.waitForType('presence.join', (f) => memberExternalId(f) === 'test:doomed');

    // The crash: instance b stops heartbeating without leaving anything (its socket even stays open).
    await b.backplane.close();
    const leave = await watcher.waitFor(
      (f) => f.type === 'presence.leave' && (f.actor as { id?: string } | undefined)?.id === 'test:doomed',
      'the dead instance’s member to leave',
    );
    assert.equal(leave.room, room);
    assert.deepEqual(leave.actor, { type: 'end_user', id: 'test:doomed', identityProvider: 'test' });
    const listed = await call(a.app, {
      method: 'GET',
      url: `/v1/rooms/${room}/presence`,
      headers: bearer(tenant.apiKey),
    });
    const externalIds = listed.json<{ data: { actor: { id: string } }[] }>().data.map((m) => m.actor.id);
    assert.equal(externalIds.length, 1);
    assert.ok(!externalIds.includes('test:doomed'));
    await watcher.close();
    doomed.socket.terminate();
  });
});

describe('graceful shutdown', () => {
  test('closing an instance closes its sockets with 1012 and its members leave at once', async () => {
    // A generous close grace: on a loaded machine the client may answer the close frame late.
    const c = await startInstance({ deployment: shared, db: a.db, limits: { closeGraceMs: 10_000 } });
    const tenant = await tenantWithRoom(a);
    const room = tenant.roomId;
    const watcher = await TestClient.connect(a.wsUrl, await sessionToken(a, tenant.apiKey));
    await watcher.join(room);
    const leaving = await TestClient.connect(
      c.wsUrl,
      await sessionToken(c, tenant.apiKey, { actorId: 'test:leaving' }),
    );
    await leaving.join(room);
    await watcher.waitForType('presence.join', (f) => memberExternalId(f) === 'test:leaving');
    await c.close();
    assert.equal((await leaving.closed()).code, CLOSE.restart);
    // Announced by the closing instance itself, not left to expire.
    await watcher.waitForType('presence.leave');
    await watcher.close();
  });
});
