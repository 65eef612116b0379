import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.ts';
import type { Database } from '../../src/core/db/database.ts';
import { openDatabase } from '../../src/runtime.ts';
import { CLOSE } from '../../src/surfaces/realtime/index.ts';
import { bearer, connectSession } from '../factories.ts';
import { call, testConfig } from '../helper.ts';
import { TestClient } from './client.ts';
import { tenantWithRoom } from './fixtures.ts';
import { type Deployment, deployment, type Instance, startInstance } from './support.ts';

/** Heartbeats far apart: only the revocation itself, or the token's expiry, can explain a close. */
const limits = { heartbeatMs: 600_000, idleTimeoutMs: 1_200_000 };

let shared: Deployment;
let a: Instance;
let b: Instance;
let ownDb: Database | undefined;

before(async () => {
  shared = deployment();
  a = await startInstance({ deployment: shared, limits });
  const config = testConfig();
  if (config.databaseUrl !== undefined) ownDb = await openDatabase(config);
  b = await startInstance({ deployment: shared, limits, db: ownDb ?? a.db });
});
after(async () => {
  await Promise.all([a.close(), b.close()]);
  await ownDb?.close();
  await shared.cleanup();
});

async function revoke(t: Instance, apiKey: string, payload: Record<string, string>): Promise<void> {
  const res = await call(t.app, {
    method: 'POST',
    url: '/v1/runtime/sessions/revoke',
    headers: bearer(apiKey),
    payload,
  });
  assert.equal(res.statusCode, 200, res.body);
}

async function messageTexts(t: Instance, apiKey: string, roomId: string): Promise<string[]> {
  const res = await call(t.app, {
    method: 'GET',
    url: `/v1/rooms/${roomId}/messages`,
    headers: bearer(apiKey),
  });
  return res.json<{ data: { text: string }[] }>().data.map((m) => m.text);
}

describe('revoked and expired sessions on open sockets', () => {
  test('a revoked session’s frames are refused from the revocation on, and its socket closes with 4401', async () => {
    const tenant = await tenantWithRoom(a);
    const session = await connectSession(a, tenant.apiKey);
    const client = await TestClient.connect(a.wsUrl, session.token);
    await client.join(tenant.roomId);
    client.send({ type: 'chat.send', room: tenant.roomId, text: 'before', ref: 'before' });
    await client.waitFor((f) => f.type === 'chat.message', 'its own message');

    await revoke(a, tenant.apiKey, { sessionId: session.sessionId });
    for (let i = 0; i < 20; i++) client.send({ type: 'chat.send', room: tenant.roomId, text: `after ${i}` });
    assert.equal((await client.closed()).code, CLOSE.unauthorized);
    assert.deepEqual(await messageTexts(a, tenant.apiKey, tenant.roomId), ['before']);
  });

  test('revoking by actor closes every socket of the actor', async () => {
    const tenant = await tenantWithRoom(a);
    const first = await connectSession(a, tenant.apiKey, { actorId: 'test:twice' });
    const second = await connectSession(a, tenant.apiKey, { actorId: 'test:twice' });
    const other = await connectSession(a, tenant.apiKey, { actorId: 'test:other' });
    const clients = await Promise.all(
      [first, second, other].map((s) => TestClient.connect(a.wsUrl, s.token)),
    );
    await revoke(a, tenant.apiKey, { actorId: first.actorId });
    assert.equal((await clients[0]?.closed())?.code, CLOSE.unauthorized);
    assert.equal((await clients[1]?.closed())?.code, CLOSE.unauthorized);
    const survivor = clients[2];
    assert.ok(survivor !== undefined);
    await survivor.join(tenant.roomId);
    await survivor.close();
  });

  test('a revocation made on one instance closes the socket on another', async (t) => {
    const tenant = await tenantWithRoom(a);
    const session = await connectSession(a, tenant.apiKey);
    const client = await TestClient.connect(b.wsUrl, session.token);
    await client.join(tenant.roomId);
    const started = performance.now();
    await revoke(a, tenant.apiKey, { sessionId: session.sessionId });
    assert.equal((await client.closed()).code, CLOSE.unauthorized);
    t.diagnostic(
      `closed on the other instance ${Math.round(performance.now() - started)} ms after the revoke call`,
    );
  });
});

describe('expiry', () => {
  let short: Instance;
  // The app's time moves only when the test says: the token expires after the join, however slow the
  // machine, and without waiting for it in real time.
  const clock = new ManualClock(Date.now());
  before(async () => {
    short = await startInstance({ limits, clock, config: { sessionTtlSeconds: 60 } });
  });
  after(() => short.close());

  test('a socket closes with 4401 when its token expires, between heartbeats', async (t) => {
    const tenant = await tenantWithRoom(short);
    const res = await call(short.app, {
      method: 'POST',
      url: '/v1/runtime/connect',
      headers: { 'x-api-key': tenant.apiKey },
      payload: {
        modules: ['rooms', 'chat'],
        actor: { type: 'end_user', id: 'test:brief', identityProvider: 'test' },
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const { token, expiresAt } = res.json<{ token: string; expiresAt: string }>();
    const client = await TestClient.connect(short.wsUrl, token);
    await client.join(tenant.roomId);
    clock.advance(Date.parse(expiresAt) - clock.now() - 1_000);
    client.send({ type: 'ping', ref: 'still-in-time' });
    await client.waitForType('pong', (frame) => frame.ref === 'still-in-time');
    clock.advance(1_000);
    const closed = await client.closed();
    assert.equal(closed.code, CLOSE.unauthorized);
    t.diagnostic(`closed at exp on the app's clock (${clock.now() - Date.parse(expiresAt)} ms after it)`);
  });
});
