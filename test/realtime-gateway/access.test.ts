import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { CLOSE } from '../../src/surfaces/realtime/index.ts';
import { bearer, connectSession } from '../factories.ts';
import { call } from '../helper.ts';
import { eventually } from '../support/eventually.ts';
import { TestClient } from './client.ts';
import { createRoom, sessionToken, tenantWithRoom } from './fixtures.ts';
import { type Instance, startInstance } from './support.ts';

let t: Instance;
before(async () => {
  // Heartbeats re-check tokens; a short period lets revocation show quickly.
  t = await startInstance({ limits: { heartbeatMs: 100 } });
});
after(async () => t.close());

describe('who may connect and where', () => {
  test('the upgrade needs a valid session token', async () => {
    const tenant = await tenantWithRoom(t);
    assert.equal(await TestClient.refusal(t.wsUrl), 401);
    assert.equal(await TestClient.refusal(`${t.wsUrl}?token=not-a-token`), 401);
    assert.equal(await TestClient.refusal(t.wsUrl, bearer(tenant.apiKey)), 401, 'API keys are not accepted');
    const client = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey), { via: 'header' });
    await client.join(tenant.roomId);
    await client.close();
  });

  /** Sends a raw upgrade request for `path`; answers what came back once the server closed the socket. */
  async function rawUpgrade(path: string, headers = ''): Promise<string> {
    const { port } = new URL(t.wsUrl);
    const socket = net.connect(Number(port), '127.0.0.1');
    let answer = '';
    let closed = false;
    socket.on('data', (chunk) => {
      answer += chunk.toString();
    });
    socket.on('close', () => {
      closed = true;
    });
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n${headers}` +
        'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    );
    await eventually(`the server to close the answered upgrade of ${path}`, () => closed || undefined);
    return answer;
  }

  test('a refused upgrade gets its answer and loses its socket (no half-open leftovers)', async () => {
    assert.match(await rawUpgrade('/v1/realtime'), /^HTTP\/1\.1 401 /);
  });

  test('an upgrade sent to an HTTP route or to no route gets its HTTP answer, then loses its socket', async () => {
    const tenant = await tenantWithRoom(t);
    const me = await rawUpgrade('/v1/me', `Authorization: Bearer ${tenant.apiKey}\r\n`);
    assert.match(me, /^HTTP\/1\.1 200 /);
    assert.match(me, /"principal"/);
    assert.match(await rawUpgrade('/v1/me'), /^HTTP\/1\.1 401 /);
    assert.match(await rawUpgrade('/v1/no-such-route'), /^HTTP\/1\.1 404 /);
  });

  test('a token minted for one room may join only that room', async () => {
    const tenant = await tenantWithRoom(t);
    const otherRoom = await createRoom(t, tenant.apiKey);
    const client = await TestClient.connect(
      t.wsUrl,
      await sessionToken(t, tenant.apiKey, { roomId: tenant.roomId }),
    );
    client.send({ type: 'join', room: otherRoom, ref: 'other' });
    const refused = await client.waitFor((f) => f.ref === 'other', 'the refusal');
    assert.deepEqual([refused.type, refused.code], ['error', 'forbidden']);
    client.send({ type: 'chat.send', room: otherRoom, text: 'sneak', ref: 'sneak' });
    assert.equal((await client.waitFor((f) => f.ref === 'sneak', 'refusal')).code, 'forbidden');
    await client.join(tenant.roomId);
    await client.close();
  });

  test('a room that does not exist in the token’s tenant cannot be joined', async () => {
    const tenant = await tenantWithRoom(t);
    const stranger = await tenantWithRoom(t);
    const client = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey));
    for (const room of ['no-such-room', stranger.roomId]) {
      client.send({ type: 'join', room, ref: room });
      const refused = await client.waitFor((f) => f.ref === room, 'the refusal');
      assert.deepEqual([refused.type, refused.code], ['error', 'not_found']);
    }
    await client.close();
  });

  test('the token’s modules decide which frames it may send', async () => {
    const tenant = await tenantWithRoom(t);
    const presenceOnly = await TestClient.connect(
      t.wsUrl,
      await sessionToken(t, tenant.apiKey, { modules: ['presence'] }),
    );
    await presenceOnly.join(tenant.roomId, { presence: { here: true } });
    presenceOnly.send({ type: 'chat.send', room: tenant.roomId, text: 'hi', ref: 'chat' });
    presenceOnly.send({ type: 'typing', room: tenant.roomId, ref: 'typing' });
    assert.equal((await presenceOnly.waitFor((f) => f.ref === 'chat', 'refusal')).code, 'insufficient_scope');
    assert.equal(
      (await presenceOnly.waitFor((f) => f.ref === 'typing', 'refusal')).code,
      'insufficient_scope',
    );
    // Nor does it receive chat: a message posted now does not reach it (its next pong does).
    const res = await call(t.app, {
      method: 'POST',
      url: `/v1/rooms/${tenant.roomId}/messages`,
      headers: bearer(tenant.apiKey),
      payload: {
        text: 'not for presence-only tokens',
        actor: { type: 'agent', id: 'test:bot', identityProvider: 'test' },
      },
    });
    assert.equal(res.statusCode, 201);
    presenceOnly.send({ type: 'ping', ref: 'last' });
    await presenceOnly.waitFor((f) => f.ref === 'last', 'pong');
    assert.equal(presenceOnly.of('chat.message').length, 0);
    await presenceOnly.close();
  });

  test('revoking the session closes its socket with 4401', async () => {
    const tenant = await tenantWithRoom(t);
    const session = await connectSession(t, tenant.apiKey);
    const client = await TestClient.connect(t.wsUrl, session.token);
    await client.join(tenant.roomId);
    const revoked = await call(t.app, {
      method: 'POST',
      url: '/v1/runtime/sessions/revoke',
      headers: bearer(tenant.apiKey),
      payload: { sessionId: session.sessionId },
    });
    assert.equal(revoked.statusCode, 200, revoked.body);
    assert.equal((await client.closed()).code, CLOSE.unauthorized);
  });

  test('disabling every module of the token closes its socket with 4403', async () => {
    const tenant = await tenantWithRoom(t);
    const client = await TestClient.connect(
      t.wsUrl,
      await sessionToken(t, tenant.apiKey, { modules: ['presence'] }),
    );
    await client.join(tenant.roomId);
    const off = await call(t.app, {
      method: 'PUT',
      url: `/api/console/tenants/${tenant.tenantId}/modules/presence`,
      headers: bearer(tenant.ownerToken),
      payload: { enabled: false },
    });
    assert.equal(off.statusCode, 200, off.body);
    assert.equal((await client.closed()).code, CLOSE.forbidden);
  });
});
