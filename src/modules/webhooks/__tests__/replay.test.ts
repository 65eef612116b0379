import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestTenant, type TestTenant } from '../../../../test/factories.ts';
import { buildTestApp, call, type TestApp } from '../../../../test/helper.ts';
import type { Clock } from '../../../core/clock.ts';
import {
  createEndpoint,
  getDelivery,
  listDeliveries,
  PER_ATTEMPT,
  replayDeadLettered,
  updateEndpoint,
} from '../index.ts';
import { SECRET, webhookSuite } from './suite.ts';
import {
  createTenant,
  ctxFor,
  futureClock,
  isCode,
  startReceiver,
  status,
  wakingWith,
  webhookConfig,
} from './support.ts';

/** futureClock's timers, with `now` fixed `agoMs` before the present: events that happened back then. */
function clockAgo(agoMs: number): Clock {
  const at = futureClock.now() - agoMs;
  return { now: () => at, setTimeout: futureClock.setTimeout };
}

const HOUR = 3_600_000;
const iso = (clock: Clock, deltaMs = 0) => new Date(clock.now() + deltaMs).toISOString();

describe('webhook replay of dead letters, delivery time filters, the request shown', () => {
  const s = webhookSuite();

  test("replay queues the endpoint's dead letters since a time, once; the rest stay dead", async () => {
    const receiver = await startReceiver(status(500));
    const config = webhookConfig({ webhookRetryScheduleMs: [10] });
    const { tenantId, ctx } = await s.tenant(config);
    const endpoint = await createEndpoint(ctx, { url: receiver.url, secret: SECRET });
    const other = await createEndpoint(ctx, { url: receiver.url, secret: SECRET });
    const [old, mid, recent] = [clockAgo(3 * HOUR), clockAgo(2 * HOUR), clockAgo(HOUR)];
    const ids: string[] = [];
    for (const clock of [old, mid, recent]) {
      ids.push(...(await s.publish(tenantId, 'room.created', {}, clock)).deliveryIds);
    }
    const mine = (await listDeliveries(ctx, { endpointId: endpoint.id })).data.map((d) => d.id);
    const [oldId = '', midId = '', recentId = ''] = [...mine].reverse();
    const worker = s.worker({ config, tenantIds: [tenantId] });
    const wakeCtx = wakingWith(ctx, worker);
    try {
      for (const id of ids) await s.waitFor(id, 'dead_lettered');

      const since = iso(mid, -1);
      const inRange = await listDeliveries(ctx, { endpointId: endpoint.id, since, until: iso(recent) });
      assert.deepEqual(
        inRange.data.map((d) => d.id),
        [midId],
        'since is inclusive, until exclusive',
      );

      receiver.reply = status(200);
      assert.deepEqual(await replayDeadLettered(wakeCtx, { id: endpoint.id, since }), {
        endpointId: endpoint.id,
        queued: 2,
      });
      assert.equal(
        (await replayDeadLettered(wakeCtx, { id: endpoint.id, since })).queued,
        0,
        'a repeat finds them queued already',
      );
      await s.waitFor(midId, 'delivered');
      await s.waitFor(recentId, 'delivered');
      assert.equal((await getDelivery(ctx, { id: oldId })).state, 'dead_lettered', 'older than since');
      const untouched = await listDeliveries(ctx, { endpointId: other.id, state: 'dead_lettered' });
      assert.equal(untouched.data.length, 3, "another endpoint's dead letters stay");
      const detail = await getDelivery(ctx, { id: recentId });
      assert.deepEqual(
        detail.attempts.map((a) => [a.cycle, a.statusCode]),
        [
          [1, 500],
          [1, 500],
          [2, 200],
        ],
      );
    } finally {
      await worker.stop();
      await receiver.close();
    }

    await assert.rejects(
      replayDeadLettered(ctx, { id: endpoint.id, since: iso(recent), until: iso(old) }),
      isCode('invalid_request'),
    );
    await assert.rejects(
      replayDeadLettered(ctx, { id: endpoint.id, since: 'yesterday' }),
      isCode('invalid_request'),
    );
    const stranger = ctxFor(s.db, await createTenant(s.db), config);
    await assert.rejects(
      replayDeadLettered(stranger, { id: endpoint.id, since: iso(old) }),
      isCode('not_found'),
    );
    await updateEndpoint(ctx, { id: endpoint.id, enabled: false });
    await assert.rejects(replayDeadLettered(ctx, { id: endpoint.id, since: iso(old) }), isCode('conflict'));
  });

  test('a delivery shows the request its attempts send, without the signatures', async () => {
    const { tenantId, ctx } = await s.tenant();
    const endpoint = await createEndpoint(ctx, { url: 'https://example.test/hook', secret: SECRET });
    const { deliveryIds } = await s.publish(tenantId, 'room.created', { roomId: 'room_7' });
    const [id = ''] = deliveryIds;
    const detail = await getDelivery(ctx, { id });
    assert.equal(detail.request.url, endpoint.url);
    const { headers } = detail.request;
    assert.equal(headers['webhook-id'], id);
    assert.equal(headers['x-svc-event'], 'room.created');
    assert.equal(headers['content-type'], 'application/json');
    assert.equal(headers['content-length'], String(Buffer.byteLength(detail.body)));
    assert.equal(headers['webhook-signature'], PER_ATTEMPT);
    assert.equal(headers['x-svc-signature'], PER_ATTEMPT);
    assert.match(headers.traceparent ?? '', /^00-[0-9a-f]{32}-\(set per attempt\)-0[01]$/);
    assert.ok(!JSON.stringify(detail).includes(SECRET));
  });
});

describe('POST /v1/webhooks/:webhookId/replay', () => {
  let t: TestApp;
  let tenant: TestTenant;
  before(async () => {
    t = await buildTestApp();
    tenant = await createTestTenant(t);
  });
  after(() => t.close());

  test('answers 202 with the count, validates since, and lists deliveries by time', async () => {
    const headers = { 'x-api-key': tenant.apiKey };
    const created = await call(t.app, {
      method: 'POST',
      url: '/v1/webhooks',
      headers,
      payload: { url: 'https://example.test/replay', secret: SECRET },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json<{ id: string }>().id;
    const replay = (payload: Record<string, unknown>) =>
      call(t.app, { method: 'POST', url: `/v1/webhooks/${id}/replay`, headers, payload });
    const done = await replay({ since: '2020-01-01T00:00:00.000Z' });
    assert.equal(done.statusCode, 202, done.body);
    assert.deepEqual(done.json(), { endpointId: id, queued: 0 });
    assert.equal((await replay({})).statusCode, 400);
    assert.equal((await replay({ since: '2020-01-01T00:00:00.000Z', extra: 1 })).statusCode, 400);

    const listed = await call(t.app, {
      method: 'GET',
      url: `/v1/webhooks/${id}/deliveries?since=2020-01-01T00:00:00.000Z&until=2020-01-02T00:00:00.000Z`,
      headers,
    });
    assert.equal(listed.statusCode, 200, listed.body);
    assert.deepEqual(listed.json<{ data: unknown[] }>().data, []);
    const bad = await call(t.app, {
      method: 'GET',
      url: `/v1/webhooks/${id}/deliveries?since=soon`,
      headers,
    });
    assert.equal(bad.statusCode, 400);
  });
});
