import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventually } from '../../../../test/support/eventually.ts';
import {
  createEndpoint,
  getDelivery,
  listDeliveries,
  redeliver,
  sendTestEvent,
  updateEndpoint,
} from '../index.ts';
import { SECRET, suiteReceiver, webhookSuite } from './suite.ts';
import { createTenant, ctxFor, isCode, startReceiver, status, wakingWith, webhookConfig } from './support.ts';

describe('webhook deliveries: fan-out, test events, redelivery, listing', () => {
  const s = webhookSuite();
  const receiver = suiteReceiver();

  test('fan-out follows eventTypes: null gets all, lists match exactly or by prefix.*, disabled gets none', async () => {
    const tenantId = await createTenant(s.db);
    const other = await createTenant(s.db);
    const ctx = ctxFor(s.db, tenantId, webhookConfig());
    const base = receiver().url.replace(/\/hook$/, '');
    const all = await createEndpoint(ctx, { url: `${base}/all`, secret: SECRET, eventTypes: null });
    const rooms = await createEndpoint(ctx, {
      url: `${base}/rooms`,
      secret: SECRET,
      eventTypes: ['room.created'],
    });
    const auctions = await createEndpoint(ctx, {
      url: `${base}/auctions`,
      secret: SECRET,
      eventTypes: ['auction.*'],
    });
    await createEndpoint(ctx, { url: `${base}/off`, secret: SECRET, enabled: false });
    await createEndpoint(ctxFor(s.db, other, webhookConfig()), { url: `${base}/other`, secret: SECRET });

    const published = new Map<string, string[]>();
    for (const type of [
      'room.created',
      'auction.started',
      'auction.bid.placed',
      'chat.message.sent',
      'auction',
    ]) {
      published.set(type, (await s.publish(tenantId, type, { type })).deliveryIds);
    }
    const worker = s.worker({ tenantIds: [tenantId] });
    const ids = [...published.values()].flat();
    try {
      for (const id of ids) await s.waitFor(id, 'delivered');
    } finally {
      await worker.stop();
    }
    const endpointsOf = async (type: string) =>
      (await Promise.all((published.get(type) ?? []).map((id) => getDelivery(ctx, { id }))))
        .map((d) => d.endpointId)
        .sort();
    assert.deepEqual(await endpointsOf('room.created'), [all.id, rooms.id].sort());
    assert.deepEqual(await endpointsOf('auction.started'), [all.id, auctions.id].sort());
    assert.deepEqual(await endpointsOf('auction.bid.placed'), [all.id, auctions.id].sort());
    assert.deepEqual(await endpointsOf('chat.message.sent'), [all.id]);
    assert.deepEqual(await endpointsOf('auction'), [all.id], 'auction.* does not match auction itself');

    const mine = receiver().received.filter((r) => ids.includes(String(r.headers['x-svc-delivery'])));
    const paths = (path: string) =>
      mine
        .filter((r) => r.url === path)
        .map((r) => r.headers['x-svc-event'])
        .sort();
    assert.deepEqual(paths('/all'), [
      'auction',
      'auction.bid.placed',
      'auction.started',
      'chat.message.sent',
      'room.created',
    ]);
    assert.deepEqual(paths('/rooms'), ['room.created']);
    assert.deepEqual(paths('/auctions'), ['auction.bid.placed', 'auction.started']);
    assert.deepEqual(paths('/off'), []);
    assert.deepEqual(paths('/other'), []);
  });

  test('a test event goes to that endpoint only, whatever its eventTypes', async () => {
    const { tenantId, ctx } = await s.tenant();
    const target = await createEndpoint(ctx, {
      url: receiver().url,
      secret: SECRET,
      eventTypes: ['room.created'],
    });
    const bystander = await createEndpoint(ctx, { url: receiver().url, secret: SECRET, eventTypes: null });
    const worker = s.worker({ tenantIds: [tenantId] });
    try {
      const delivery = await sendTestEvent(wakingWith(ctx, worker), { id: target.id });
      assert.equal(delivery.eventType, 'webhook.test');
      assert.equal(delivery.endpointId, target.id);
      await s.waitFor(delivery.id, 'delivered');
      const request = receiver().received.find((r) => r.headers['x-svc-delivery'] === delivery.id);
      assert.equal(request?.json.type, 'webhook.test');
      assert.deepEqual((await listDeliveries(ctx, { endpointId: bystander.id })).data, []);
      await updateEndpoint(ctx, { id: target.id, enabled: false });
      await assert.rejects(sendTestEvent(ctx, { id: target.id }), isCode('conflict'));
    } finally {
      await worker.stop();
    }
  });

  test('redeliver starts a new attempt cycle with the same id and bytes', async () => {
    const failing = await startReceiver(status(500));
    const config = webhookConfig({ webhookRetryScheduleMs: [10] });
    const { tenantId, ctx } = await s.tenant(config);
    const endpoint = await createEndpoint(ctx, { url: failing.url, secret: SECRET });
    const { deliveryIds } = await s.publish(tenantId, 'room.created', { roomId: 'room_9' });
    const [id = ''] = deliveryIds;
    const worker = s.worker({ config, tenantIds: [tenantId] });
    const wakeCtx = wakingWith(ctx, worker);
    try {
      await s.waitFor(id, 'dead_lettered');
      // The receiver is fixed; a redelivery now succeeds.
      failing.reply = status(200);
      const again = await redeliver(wakeCtx, { id });
      assert.equal(again.state, 'pending');
      assert.equal(again.deadLetteredAt, null);
      await s.waitFor(id, 'delivered');
      await assert.rejects(redeliver(wakeCtx, { id: 'whd_00000000000000000000000000' }), isCode('not_found'));

      // Redelivering a delivered one works too; a pending one is a conflict.
      await redeliver(wakeCtx, { id });
      await eventually('third cycle delivered', async () => {
        const row = await s.row(id);
        return row.state === 'delivered' && row.cycle === 3 ? row : undefined;
      });
      await updateEndpoint(ctx, { id: endpoint.id, enabled: false });
      await assert.rejects(redeliver(ctx, { id }), isCode('conflict'));
    } finally {
      await worker.stop();
      await failing.close();
    }
    const detail = await getDelivery(ctx, { id });
    assert.deepEqual(
      detail.attempts.map((a) => [a.attempt, a.cycle, a.statusCode]),
      [
        [1, 1, 500],
        [2, 1, 500],
        [3, 2, 200],
        [4, 3, 200],
      ],
    );
    const sent = failing.received.filter((r) => r.headers['x-svc-delivery'] === id);
    assert.equal(sent.length, 4);
    assert.equal(new Set(sent.map((r) => r.raw.toString('hex'))).size, 1, 'the same bytes on every cycle');
  });

  test('a pending delivery cannot be redelivered', async () => {
    const { tenantId, ctx } = await s.tenant();
    await createEndpoint(ctx, { url: receiver().url, secret: SECRET });
    const { deliveryIds } = await s.publish(tenantId, 'room.created', {});
    await assert.rejects(redeliver(ctx, { id: deliveryIds[0] ?? '' }), isCode('conflict'));
  });

  test('a disabled endpoint keeps its deliveries pending until it is enabled again', async () => {
    const { tenantId, ctx } = await s.tenant();
    const endpoint = await createEndpoint(ctx, { url: receiver().url, secret: SECRET });
    const { deliveryIds } = await s.publish(tenantId, 'room.created', {});
    const [id = ''] = deliveryIds;
    await updateEndpoint(ctx, { id: endpoint.id, enabled: false });
    const worker = s.worker({ tenantIds: [tenantId] });
    try {
      await worker.idle();
      assert.equal((await s.row(id)).state, 'pending');
      assert.equal((await s.row(id)).attempt_count, 0);
      await updateEndpoint(ctx, { id: endpoint.id, enabled: true });
      worker.wake();
      await s.waitFor(id, 'delivered');
    } finally {
      await worker.stop();
    }
  });

  test('listing filters by endpoint, state and event type, newest first, with a cursor', async () => {
    const { tenantId, ctx } = await s.tenant();
    const a = await createEndpoint(ctx, { url: receiver().url, secret: SECRET });
    const b = await createEndpoint(ctx, { url: receiver().url, secret: SECRET, eventTypes: ['room.*'] });
    const ids: string[] = [];
    for (const type of ['room.created', 'auction.started', 'room.closed']) {
      ids.push(...(await s.publish(tenantId, type, {})).deliveryIds);
    }
    const everything = await listDeliveries(ctx, {});
    assert.equal(everything.data.length, 5);
    assert.deepEqual(
      everything.data.map((d) => d.id),
      [...ids].sort().reverse(),
    );
    assert.equal((await listDeliveries(ctx, { endpointId: b.id })).data.length, 2);
    assert.equal((await listDeliveries(ctx, { endpointId: a.id, eventType: 'room.closed' })).data.length, 1);
    assert.equal((await listDeliveries(ctx, { state: 'delivered' })).data.length, 0);
    assert.equal((await listDeliveries(ctx, { state: 'pending' })).data.length, 5);

    const first = await listDeliveries(ctx, { limit: 2 });
    const second = await listDeliveries(ctx, { limit: 2, cursor: first.nextCursor ?? undefined });
    const third = await listDeliveries(ctx, { limit: 2, cursor: second.nextCursor ?? undefined });
    assert.deepEqual(
      [...first.data, ...second.data, ...third.data].map((d) => d.id),
      everything.data.map((d) => d.id),
    );
    assert.equal(third.nextCursor, null);

    await assert.rejects(listDeliveries(ctx, { limit: 0 }), isCode('invalid_request'));
    await assert.rejects(listDeliveries(ctx, { cursor: 'nope' }), isCode('invalid_request'));
    await assert.rejects(
      listDeliveries(ctx, { endpointId: 'whe_00000000000000000000000000' }),
      isCode('not_found'),
    );
    const stranger = (await s.tenant()).ctx;
    assert.deepEqual((await listDeliveries(stranger, {})).data, []);
    await assert.rejects(getDelivery(stranger, { id: ids[0] ?? '' }), isCode('not_found'));
  });
});
