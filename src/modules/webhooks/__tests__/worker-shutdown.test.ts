import assert from 'node:assert/strict';
import type http from 'node:http';
import { describe, test } from 'node:test';
import { eventually } from '../../../../test/support/eventually.ts';
import { createEndpoint } from '../index.ts';
import { SECRET, webhookSuite } from './suite.ts';
import { type Reply, startReceiver, webhookConfig } from './support.ts';

/** A worker's stop() with attempts in flight, and its cap on one endpoint's concurrent requests. */
describe('webhook workers: shutdown, concurrency caps', () => {
  const s = webhookSuite();

  test('stop() aborts attempts still in flight after the grace and releases them for others at once', async () => {
    const held: http.ServerResponse[] = [];
    const hold: Reply = (_req, res) => {
      held.push(res);
    };
    const receiver = await startReceiver(hold);
    const config = webhookConfig({ webhookTimeoutMs: 60_000 });
    const { tenantId, id } = await s.delivery(receiver.url, config);
    const first = s.worker({
      config,
      instanceId: 'first',
      tenantIds: [tenantId],
    });
    await eventually('the request to arrive', () => (held.length === 1 ? true : undefined));
    await first.stop({ graceMs: 0 });
    const released = await s.row(id);
    assert.equal(released.state, 'pending');
    assert.equal(released.lease_owner, null);
    assert.equal(released.cycle_attempt_count, 0, 'an interrupted attempt does not use up the schedule');

    receiver.reply = (_req, res) => {
      res.writeHead(200).end();
    };
    const second = s.worker({
      config,
      instanceId: 'second',
      tenantIds: [tenantId],
    });
    try {
      await s.waitFor(id, 'delivered');
    } finally {
      await second.stop();
      for (const res of held) res.destroy();
      await receiver.close();
    }
    const attempts = await s.attempts(id);
    assert.deepEqual(
      attempts.map((a) => [a.error_class, a.worker]),
      [
        ['interrupted', 'first'],
        [null, 'second'],
      ],
    );
  });

  test('stop() lets an attempt in flight finish within the grace', async () => {
    const receiver = await startReceiver((_req, res) => {
      setTimeout(() => res.writeHead(200).end(), 50);
    });
    const { tenantId, id } = await s.delivery(receiver.url, webhookConfig());
    const worker = s.worker({ tenantIds: [tenantId] });
    await eventually('the request to arrive', () => (receiver.received.length === 1 ? true : undefined));
    await worker.stop({ graceMs: 60_000 });
    await receiver.close();
    assert.equal((await s.row(id)).state, 'delivered');
  });

  test('a slow endpoint holds at most its concurrency cap; other endpoints keep flowing', async () => {
    const held: http.ServerResponse[] = [];
    let open = 0;
    let peak = 0;
    const track = (res: http.ServerResponse) => {
      open += 1;
      peak = Math.max(peak, open);
      res.on('close', () => {
        open -= 1;
      });
    };
    const slow = await startReceiver((_req, res) => {
      track(res);
      held.push(res);
    });
    const fast = await startReceiver();
    const config = webhookConfig({ webhookTimeoutMs: 60_000 });
    const { tenantId, ctx } = await s.tenant(config);
    await createEndpoint(ctx, { url: slow.url, secret: SECRET, eventTypes: ['slow.thing'] });
    await createEndpoint(ctx, { url: fast.url, secret: SECRET, eventTypes: ['fast.thing'] });
    const slowIds: string[] = [];
    for (let i = 0; i < 10; i++)
      slowIds.push(...(await s.publish(tenantId, 'slow.thing', { i })).deliveryIds);
    const fastIds: string[] = [];
    for (let i = 0; i < 5; i++) fastIds.push(...(await s.publish(tenantId, 'fast.thing', { i })).deliveryIds);

    const worker = s.worker({
      config,
      tenantIds: [tenantId],
      maxConcurrency: 8,
      perEndpointConcurrency: 2,
    });
    try {
      for (const id of fastIds) await s.waitFor(id, 'delivered');
      await eventually('two slow requests', () => (held.length === 2 ? true : undefined));
      // One more claim cycle: had the cap let a third slow request through, it would go out now too.
      const [extra = ''] = (await s.publish(tenantId, 'fast.thing', { i: 99 })).deliveryIds;
      worker.wake();
      await s.waitFor(extra, 'delivered');
      assert.equal(held.length, 2, 'the slow endpoint is capped while the fast one was served');
      slow.reply = (_req, res) => {
        track(res);
        setTimeout(() => res.writeHead(200).end(), 5);
      };
      for (const res of held.splice(0)) res.writeHead(200).end();
      for (const id of slowIds) await s.waitFor(id, 'delivered');
    } finally {
      await worker.stop({ graceMs: 0 });
      await slow.close();
      await fast.close();
    }
    assert.ok(peak <= 2, `at most 2 concurrent requests to the slow endpoint, saw ${peak}`);
  });
});
