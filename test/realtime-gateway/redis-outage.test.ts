import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { systemClock } from '../../src/core/clock.ts';
import { createRealtimeBackplane } from '../../src/core/realtime/index.ts';
import { deleteKeys } from '../realtime/backends.ts';
import { eventually } from '../support/eventually.ts';
import { startThrowawayRedis, type ThrowawayRedis } from '../support/redis-server.ts';
import { type Frame, TestClient } from './client.ts';
import { createRoom, sessionToken, tenantWithRoom } from './fixtures.ts';
import { type Instance, startInstance } from './support.ts';

/**
 * Redis (REDIS_URL) goes away while the service runs, then comes back: a throw-away redis-server of this
 * test's own, killed and started again on its port (never the machine's Redis). Frames that need Redis
 * are answered with `service_unavailable` while it is away (not left without an answer), nothing is
 * stored, and realtime works again by itself once Redis is back.
 */
describe('realtime while Redis is down', () => {
  let redis: ThrowawayRedis;
  let t: Instance;
  const prefix = `svc-test:${randomUUID()}:`;

  before(async () => {
    redis = await startThrowawayRedis();
    t = await startInstance({
      config: { redisUrl: redis.url, redisPrefix: prefix },
      deployment: {
        kind: 'redis',
        backplane: () =>
          createRealtimeBackplane({ redisUrl: redis.url }, systemClock, { redisPrefix: prefix }),
        cleanup: async () => {},
      },
    });
  });
  after(async () => {
    await t?.close();
    await redis.start();
    await deleteKeys(redis.url, prefix);
    await redis.stop();
  });

  /** The frame answering `ref`, waited for while Redis stays down (the bound only turns a hang into a failure). */
  const answerTo = (client: TestClient, ref: string): Promise<Frame> =>
    eventually(`an answer to ${ref}`, () => client.frames.find((f) => f.ref === ref), { timeoutMs: 20_000 });

  test('join and chat.send answer service_unavailable, store nothing, and work again once Redis is back', async () => {
    const tenant = await tenantWithRoom(t);
    const otherRoom = await createRoom(t, tenant.apiKey);
    const token = await sessionToken(t, tenant.apiKey);
    const client = await TestClient.connect(t.wsUrl, token);
    await client.join(tenant.roomId);

    await redis.stop();

    client.send({ type: 'join', room: otherRoom, ref: 'join-while-down' });
    const joinAnswer = await answerTo(client, 'join-while-down');
    assert.equal(joinAnswer.type, 'error', JSON.stringify(joinAnswer));
    assert.equal(joinAnswer.code, 'service_unavailable', JSON.stringify(joinAnswer));
    assert.match(String(joinAnswer.message), /Redis/);

    client.send({ type: 'chat.send', room: tenant.roomId, text: 'while down', clientId: 'c-down' });
    const sendAnswer = await answerTo(client, 'c-down');
    assert.equal(sendAnswer.type, 'error', JSON.stringify(sendAnswer));
    assert.equal(sendAnswer.code, 'service_unavailable', JSON.stringify(sendAnswer));

    // Nothing was stored: the room's history has no message.
    const history = await t.app.inject({
      method: 'GET',
      url: `/v1/rooms/${tenant.roomId}/messages`,
      headers: { authorization: `Bearer ${tenant.apiKey}` },
    });
    assert.equal(history.statusCode, 200, history.body);
    assert.deepEqual(history.json<{ data: unknown[] }>().data, []);

    await redis.start();

    // Back by itself: the same connection joins and sends, and gets its message in the room's order.
    await eventually(
      'a join that succeeds after Redis came back',
      async () => {
        const ref = `join-${randomUUID()}`;
        client.send({ type: 'join', room: otherRoom, ref });
        const answer = await answerTo(client, ref);
        return answer.type === 'joined';
      },
      { stepMs: 200, timeoutMs: 30_000 },
    );
    client.send({ type: 'chat.send', room: otherRoom, text: 'after', clientId: 'c-after' });
    const message = await client.waitForType('chat.message', (f) => f.room === otherRoom);
    assert.equal((message.message as { text: string }).text, 'after');
    await client.close();
  });
});
