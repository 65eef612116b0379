import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { roomChannel } from '../../src/core/realtime/index.ts';
import { CLOSE } from '../../src/surfaces/realtime/index.ts';
import { call } from '../helper.ts';
import { eventually } from '../support/eventually.ts';
import { TestClient } from './client.ts';
import { postMessage, sessionToken, tenantWithRoom } from './fixtures.ts';
import { type Instance, startInstance } from './support.ts';

let t: Instance;
const LIMITS = {
  floodCloseAfter: 50,
  heartbeatMs: 100,
  idleTimeoutMs: 500,
  maxBufferedBytes: 256 * 1024,
  closeGraceMs: 10_000,
};

before(async () => {
  t = await startInstance({ limits: LIMITS });
});
after(async () => t.close());

/** The server still serves HTTP and a new socket can join and chat. */
async function assertHealthy(on: Instance = t): Promise<void> {
  assert.equal((await call(on.app, { method: 'GET', url: '/healthz' })).statusCode, 200);
  const tenant = await tenantWithRoom(on);
  const client = await TestClient.connect(on.wsUrl, await sessionToken(on, tenant.apiKey));
  await client.join(tenant.roomId);
  await postMessage(on, tenant.apiKey, tenant.roomId, 'still here');
  await client.waitForType('chat.message');
  await client.close();
}

describe('hostile and broken clients', () => {
  test('malformed frames get error frames and the connection stays usable', async () => {
    const tenant = await tenantWithRoom(t);
    const client = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey));
    const garbage = [
      'not json',
      '[1, 2, 3]',
      'null',
      '{"type": "nope", "ref": "r1"}',
      '{"type": "join", "ref": "r2"}',
      '{"type": "join", "room": "has spaces", "ref": "r3"}',
      '{"type": "chat.send", "room": "r", "text": "", "ref": "r4"}',
      '{"type": "ping", "extra": true, "ref": "r5"}',
      '{"__proto__": {"polluted": true}, "type": "ping"}',
    ];
    for (const frame of garbage) client.send(frame);
    client.socket.send(Buffer.from([0xde, 0xad, 0xbe, 0xef]), { binary: true });
    await eventually(
      'an error per bad frame',
      () => client.of('error').length >= garbage.length || undefined,
    );
    const errors = client.of('error');
    assert.ok(errors.every((f) => f.code === 'invalid_frame'));
    assert.deepEqual(
      errors.filter((f) => typeof f.ref === 'string').map((f) => f.ref),
      ['r1', 'r2', 'r3', 'r4', 'r5'],
    );
    assert.ok(
      ((errors.find((f) => f.ref === 'r2')?.details ?? []) as { field: string }[]).some(
        (d) => d.field === '/frame/room',
      ),
    );
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    client.send({ type: 'ping', ref: 'alive' });
    await client.waitFor((f) => f.type === 'pong' && f.ref === 'alive', 'pong');
    await client.close();
    await assertHealthy();
  });

  test('a frame over the size limit closes the connection with 1009', async () => {
    const tenant = await tenantWithRoom(t);
    const client = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey));
    client.send({ type: 'chat.send', room: tenant.roomId, text: 'x'.repeat(40 * 1024) });
    assert.equal((await client.closed()).code, CLOSE.tooBig);
    await assertHealthy();
  });

  test('a flooding client is told to slow down, then closed with 4429', async () => {
    const tenant = await tenantWithRoom(t);
    const client = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey));
    for (let i = 0; i < 500; i++) client.send({ type: 'ping', ref: `p${i}` });
    const closed = await client.closed();
    assert.equal(closed.code, CLOSE.rateLimited);
    assert.ok(client.of('error').some((f) => f.code === 'rate_limited'));
    assert.ok(client.of('pong').length >= 1 && client.of('pong').length < 500);
    await assertHealthy();
  });

  test('a client that answers nothing is closed with 4408', async () => {
    const tenant = await tenantWithRoom(t);
    const silent = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey), {
      autoPong: false,
    });
    const polite = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey));
    assert.equal((await silent.closed()).code, CLOSE.idle);
    // The client that answers pings stays connected past the same idle period.
    polite.send({ type: 'ping', ref: 'still' });
    await polite.waitFor((f) => f.ref === 'still', 'pong');
    assert.equal(polite.closedWith, undefined);
    await polite.close();
  });

  test('a client that stops reading is disconnected instead of growing the server’s buffers', async () => {
    // Its own instance, whose idle limit is far longer than filling the buffers can take on a busy machine:
    // a paused client answers no pings, and the idle close (4408) must not win the race against 4413.
    const own = await startInstance({ limits: { ...LIMITS, idleTimeoutMs: 60_000 } });
    try {
      const tenant = await tenantWithRoom(own);
      const room = tenant.roomId;
      const slow = await TestClient.connect(own.wsUrl, await sessionToken(own, tenant.apiKey));
      await slow.join(room);
      slow.socket.pause();
      const blob = 'x'.repeat(30_000);
      const channel = roomChannel(tenant.tenantId, room);
      const pubsub = own.backplane.pubsub;
      for (let i = 0; i < 700; i++) {
        await pubsub.publish(channel, {
          k: 'event',
          event: {
            id: `evt_${i}`,
            type: 'app.blob',
            data: { roomId: room, blob },
            createdAt: new Date().toISOString(),
          },
        });
      }
      slow.socket.resume();
      const closed = await slow.closed();
      const received = slow.of('event').length;
      assert.equal(
        closed.code,
        CLOSE.slowConsumer,
        `closed ${JSON.stringify(closed)} after ${received} events`,
      );
      assert.ok(received < 700, 'it was cut off before everything was queued for it');
      await assertHealthy(own);
    } finally {
      await own.close();
    }
  });
});
