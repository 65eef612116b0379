import assert from 'node:assert/strict';
import type http from 'node:http';
import net from 'node:net';
import { describe, test } from 'node:test';
import type { Queryable } from '../../../core/db/database.ts';
import { systemTx } from '../../../core/db/tenant-tx.ts';
import { newId } from '../../../core/ids.ts';
import {
  createEndpoint,
  DEAD_LETTERED_EVENT,
  type EmitTenantEvent,
  enqueueDeliveries,
  getDelivery,
  listDeliveries,
} from '../index.ts';
import { SECRET, webhookSuite } from './suite.ts';
import {
  createTenant,
  ctxFor,
  futureClock,
  type Received,
  startReceiver,
  status,
  webhookConfig,
} from './support.ts';

describe('webhook failures, retries and dead letters', () => {
  const s = webhookSuite();

  test('non-2xx answers are retried on the schedule with the same id and body bytes, then delivered', async () => {
    let calls = 0;
    const receiver = await startReceiver((_req, res) => {
      calls += 1;
      res.writeHead(calls <= 2 ? 503 : 204).end(calls <= 2 ? 'busy, try later' : undefined);
    });
    const config = webhookConfig({ webhookRetryScheduleMs: [20, 40, 60] });
    const { tenantId, id } = await s.delivery(receiver.url, config);
    try {
      await s.settle(tenantId, id, config, { state: 'delivered', worker: { random: () => 0 } });
    } finally {
      await receiver.close();
    }
    assert.equal(receiver.received.length, 3);
    const bodies = new Set(receiver.received.map((r) => r.raw.toString('hex')));
    assert.equal(bodies.size, 1, 'every attempt sends the same bytes');
    assert.deepEqual(
      receiver.received.map((r) => r.headers['x-svc-delivery']),
      [id, id, id],
    );
    assert.equal(new Set(receiver.received.map((r) => r.headers['x-svc-signature'])).size, 1);

    const attempts = await s.attempts(id);
    assert.deepEqual(
      attempts.map((a) => [a.attempt, a.status_code, a.error_class]),
      [
        [1, 503, 'http'],
        [2, 503, 'http'],
        [3, 204, null],
      ],
    );
    assert.equal(attempts[0]?.response_body_excerpt, 'busy, try later');
    // Each retry starts no earlier than its scheduled delay after the previous attempt.
    const starts = attempts.map((a) => new Date(a.started_at).getTime());
    assert.ok((starts[1] ?? 0) - (starts[0] ?? 0) >= 20);
    assert.ok((starts[2] ?? 0) - (starts[1] ?? 0) >= 40);
    const row = await getDelivery(ctxFor(s.db, tenantId, config), { id });
    assert.equal(row.attemptCount, 3);
    assert.equal(row.nextAttemptAt, null);
    assert.ok(row.deliveredAt !== null);
  });

  test('3xx is a failure and redirects are not followed; the final failure dead-letters', async () => {
    const elsewhere = await startReceiver();
    const receiver = await startReceiver(status(302, {}));
    receiver.reply = status(302, { location: elsewhere.url });
    const config = webhookConfig({ webhookRetryScheduleMs: [20, 40, 60] });
    const { tenantId, id } = await s.delivery(receiver.url, config);
    try {
      const row = await s.settle(tenantId, id, config, {
        state: 'dead_lettered',
        worker: { random: () => 0 },
      });
      assert.equal(row.attempt_count, 4, 'attempt 1 and one retry per scheduled delay');
      assert.equal(row.next_attempt_at, null);
      assert.ok(row.dead_lettered_at !== null);
    } finally {
      await receiver.close();
      await elsewhere.close();
    }
    assert.equal(receiver.received.length, 4);
    assert.equal(elsewhere.received.length, 0, 'the redirect was not followed');
    const attempts = await s.attempts(id);
    assert.deepEqual(
      attempts.map((a) => [a.attempt, a.status_code, a.error_class]),
      [
        [1, 302, 'http'],
        [2, 302, 'http'],
        [3, 302, 'http'],
        [4, 302, 'http'],
      ],
    );
    assert.match(attempts[0]?.error_message ?? '', /redirect/);
  });

  test('no answer within the timeout is a timeout failure', async () => {
    const held: http.ServerResponse[] = [];
    const receiver = await startReceiver((_req: Received, res) => {
      held.push(res);
    });
    const config = webhookConfig({ webhookRetryScheduleMs: [10], webhookTimeoutMs: 150 });
    const { tenantId, id } = await s.delivery(receiver.url, config);
    try {
      await s.settle(tenantId, id, config, { state: 'dead_lettered' });
    } finally {
      for (const res of held) res.destroy();
      await receiver.close();
    }
    const attempts = await s.attempts(id);
    assert.deepEqual(
      attempts.map((a) => [a.attempt, a.status_code, a.error_class]),
      [
        [1, null, 'timeout'],
        [2, null, 'timeout'],
      ],
    );
    assert.match(attempts[0]?.error_message ?? '', /150 ms/);
  });

  test('a refused connection is a connect failure', async () => {
    const receiver = await startReceiver();
    const url = receiver.url;
    await receiver.close();
    const config = webhookConfig({ webhookRetryScheduleMs: [10] });
    const { tenantId, id } = await s.delivery(url, config);
    await s.settle(tenantId, id, config, { state: 'dead_lettered' });
    const attempts = await s.attempts(id);
    assert.deepEqual(
      attempts.map((a) => a.error_class),
      ['connect', 'connect'],
    );
    assert.match(attempts[0]?.error_message ?? '', /ECONNREFUSED/);
  });

  test('dead-lettering emits webhook.delivery.dead_lettered in the tenant, never to the failing endpoint', async () => {
    const failing = await startReceiver(status(500));
    const healthy = await startReceiver();
    const config = webhookConfig({ webhookRetryScheduleMs: [10] });
    const { tenantId, ctx } = await s.tenant(config);
    const bad = await createEndpoint(ctx, { url: failing.url, secret: SECRET });
    const good = await createEndpoint(ctx, {
      url: healthy.url,
      secret: SECRET,
      eventTypes: ['webhook.delivery.*'],
    });

    const emitted: { tenantId: string; type: string; data: Record<string, unknown>; scope: unknown }[] = [];
    // Stands in for the event store: records the event and fans it out in the same transaction.
    const emit: EmitTenantEvent = async (tx: Queryable, eventTenant, type, data) => {
      const { rows } = await tx.query<{ role: string; tenant: string }>(
        `select current_user as role, current_setting('svc.tenant_id', true) as tenant`,
      );
      emitted.push({ tenantId: eventTenant, type, data, scope: rows[0] });
      await enqueueDeliveries(tx, {
        id: newId('event', Date.now()),
        tenantId: eventTenant,
        type,
        data,
        createdAt: new Date(futureClock.now()),
      });
      // Published only once committed: the row that dead-lettered reads so from outside the transaction.
      return () => {
        published.push(
          systemTx(s.db, (outside) =>
            outside.query<{ state: string }>('select state from webhook_deliveries where id = $1', [
              data.deliveryId,
            ]),
          ).then(({ rows }) => rows[0]?.state),
        );
      };
    };
    const published: Promise<string | undefined>[] = [];
    const { deliveryIds } = await s.publish(tenantId, 'room.created', { roomId: 'room_1' });
    const [id = ''] = deliveryIds;
    assert.equal(deliveryIds.length, 1, 'only the endpoint taking every event gets room.created');
    const worker = s.worker({
      config,
      emitTenantEvent: emit,
      tenantIds: [tenantId],
    });
    try {
      await s.waitFor(id, 'dead_lettered');
      const notices = await listDeliveries(ctx, { eventType: DEAD_LETTERED_EVENT });
      assert.equal(notices.data.length, 1);
      assert.equal(notices.data[0]?.endpointId, good.id);
      await s.waitFor(notices.data[0]?.id ?? '', 'delivered');
    } finally {
      await worker.stop();
      await failing.close();
      await healthy.close();
    }
    assert.equal(emitted.length, 1);
    assert.deepEqual(await Promise.all(published), ['dead_lettered'], 'published once, after the commit');
    assert.deepEqual(
      emitted[0]?.scope,
      { role: 'svc_tenant', tenant: tenantId },
      'a tenant-scoped transaction',
    );
    assert.equal(emitted[0]?.type, DEAD_LETTERED_EVENT);
    assert.equal(emitted[0]?.data.deliveryId, id);
    assert.equal(emitted[0]?.data.endpointId, bad.id);
    assert.equal(emitted[0]?.data.eventType, 'room.created');
    assert.equal(emitted[0]?.data.lastStatusCode, 500);
    assert.equal(
      failing.received.filter((r) => r.headers['x-svc-event'] === DEAD_LETTERED_EVENT).length,
      0,
      'the failing endpoint never gets its own dead-letter notice',
    );
    const notice = healthy.received.find((r) => r.headers['x-svc-event'] === DEAD_LETTERED_EVENT);
    assert.equal((notice?.json.data as Record<string, unknown> | undefined)?.deliveryId, id);
  });

  test('a kept-alive connection the receiver dropped is retried once on a fresh one, not failed', async () => {
    // A bare HTTP/1.1 server: it answers the first request on a connection and keeps it open, then drops
    // the connection when a second request arrives on it (a keep-alive timeout racing our reuse).
    let requests = 0;
    const server = net.createServer((socket) => {
      let served = 0;
      let buffer = '';
      socket.on('data', (chunk) => {
        buffer += chunk.toString('latin1');
        for (;;) {
          const end = buffer.indexOf('\r\n\r\n');
          if (end < 0) return;
          const length = Number(/content-length: *(\d+)/i.exec(buffer.slice(0, end))?.[1] ?? 0);
          if (buffer.length < end + 4 + length) return;
          buffer = buffer.slice(end + 4 + length);
          requests += 1;
          served += 1;
          if (served > 1) {
            socket.destroy();
            return;
          }
          socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\nok');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    const tenantId = await createTenant(s.db);
    const config = webhookConfig({ webhookRetryScheduleMs: [10] });
    await createEndpoint(ctxFor(s.db, tenantId, config), {
      url: `http://127.0.0.1:${port}/hook`,
      secret: SECRET,
    });
    const worker = s.worker({ config, tenantIds: [tenantId] });
    const ids: string[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const [id = ''] = (await s.publish(tenantId, 'room.created', { i })).deliveryIds;
        ids.push(id);
        worker.wake();
        await s.waitFor(id, 'delivered');
      }
    } finally {
      await worker.stop();
      await new Promise((resolve) => server.close(resolve));
    }
    for (const id of ids) {
      assert.deepEqual(
        (await s.attempts(id)).map((a) => [a.status_code, a.error_class]),
        [[200, null]],
      );
    }
    assert.equal(requests, 5, 'the second and third deliveries each met a dropped connection first');
  });
});
