import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { bearer, createApiKey, createTestTenant, type TestTenant } from '../../../../test/factories.ts';
import { buildTestApp, call, type TestApp } from '../../../../test/helper.ts';
import { postWithKey } from '../../../../test/support/api-key.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { ok, type Receiver, startReceiver, status } from './support.ts';

/** The webhook engine behind the real routes: events from any module reach signed deliveries. */
describe('webhooks through the API', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let receiver: Receiver;
  const secret = 'whsec-routes-test-0123456789';
  const key = () => ({ 'x-api-key': tenant.apiKey });
  const post = (url: string, payload: Record<string, unknown>) => postWithKey(t, tenant.apiKey, url, payload);

  before(async () => {
    t = await buildTestApp({
      config: { webhookRetryScheduleMs: [20, 40], webhookTimeoutMs: 2000 },
      webhookWorker: true,
    });
    tenant = await createTestTenant(t);
    receiver = await startReceiver(ok);
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  test("a request's traceparent reaches the delivery with its trace id and its sampled flag", async () => {
    const created = await post('/v1/webhooks', { url: receiver.url, secret, eventTypes: ['app.traced'] });
    assert.equal(created.statusCode, 201, created.body);
    const endpointId = created.json<{ id: string }>().id;
    const traceIds = { '01': `${'a'.repeat(31)}1`, '00': `${'b'.repeat(31)}0` };
    for (const [flags, traceId] of Object.entries(traceIds)) {
      const sent = await call(t.app, {
        method: 'POST',
        url: '/v1/events',
        headers: { ...key(), traceparent: `00-${traceId}-00f067aa0ba902b7-${flags}` },
        payload: { type: 'app.traced', data: { flags } },
      });
      assert.equal(sent.statusCode, 201, sent.body);
      const got = await eventually(`the delivery of the event sent with flags ${flags}`, () =>
        receiver.received.find(
          (r) => r.json.type === 'app.traced' && (r.json.data as { flags?: string }).flags === flags,
        ),
      );
      const [version, id, span, forwarded] = String(got.headers.traceparent).split('-');
      assert.deepEqual([version, id, forwarded], ['00', traceId, flags]);
      assert.match(span ?? '', /^[0-9a-f]{16}$/);
    }
    const removed = await call(t.app, {
      method: 'DELETE',
      url: `/v1/webhooks/${endpointId}`,
      headers: key(),
    });
    assert.equal(removed.statusCode, 200, removed.body);
  });

  test('POST /v1/webhooks validates, hides the secret, and room.created arrives signed', async () => {
    const short = await post('/v1/webhooks', { url: receiver.url, secret: 'too-short' });
    assert.equal(short.statusCode, 400);
    assert.equal(short.json<{ details: { field: string }[] }>().details[0]?.field, '/body/secret');

    const created = await post('/v1/webhooks', { url: receiver.url, secret, eventTypes: ['room.*'] });
    assert.equal(created.statusCode, 201, created.body);
    assert.doesNotMatch(created.body, new RegExp(secret));
    const endpoint = created.json<{ id: string; eventTypes: string[] }>();
    assert.match(endpoint.id, /^whe_/);

    const room = await post('/v1/rooms', { id: 'hooked-room' });
    assert.equal(room.statusCode, 201);
    await post('/v1/events', { type: 'app.ignored', data: {} });

    const got = await eventually('room.created at the receiver', () =>
      receiver.received.find((r) => r.json.type === 'room.created'),
    );
    const expected = createHmac('sha256', secret).update(got.raw).digest('hex');
    assert.equal(got.headers['x-svc-signature'], `sha256=${expected}`);
    assert.equal(got.headers['x-svc-event'], 'room.created');
    assert.equal(got.headers['x-svc-delivery'], got.json.id);
    assert.deepEqual(Object.keys(got.json), ['id', 'type', 'created_at', 'data']);
    assert.equal((got.json.data as { roomId: string }).roomId, 'hooked-room');

    const deliveries = await eventually('a delivered delivery', async () => {
      const res = await call(t.app, {
        method: 'GET',
        url: `/v1/webhooks/${endpoint.id}/deliveries?state=delivered`,
        headers: key(),
      });
      const data = res.json<{ data: { id: string; eventType: string }[] }>().data;
      return data.length > 0 ? data : undefined;
    });
    assert.deepEqual(
      deliveries.map((d) => d.eventType),
      ['room.created'],
      'app.ignored is outside eventTypes',
    );
    const detail = await call(t.app, {
      method: 'GET',
      url: `/v1/webhook-deliveries/${deliveries[0]?.id}`,
      headers: key(),
    });
    assert.equal(detail.statusCode, 200);
    assert.equal(detail.json<{ body: string }>().body, got.raw.toString('utf8'));
    assert.equal(detail.json<{ attempts: { statusCode: number }[] }>().attempts[0]?.statusCode, 200);
  });

  test('a failing endpoint ends dead_lettered and the tenant sees webhook.delivery.dead_lettered', async () => {
    const own = await createTestTenant(t);
    const failing = await startReceiver(status(500));
    try {
      const created = await call(t.app, {
        method: 'POST',
        url: '/v1/webhooks',
        headers: { 'x-api-key': own.apiKey },
        payload: { url: failing.url, secret, eventTypes: ['app.*'] },
      });
      const endpointId = created.json<{ id: string }>().id;
      await call(t.app, {
        method: 'POST',
        url: '/v1/events',
        headers: { 'x-api-key': own.apiKey },
        payload: { type: 'app.fail', data: {} },
      });
      const dead = await eventually('the dead-letter event', async () => {
        const res = await call(t.app, {
          method: 'GET',
          url: '/v1/events?type=webhook.delivery.dead_lettered',
          headers: { 'x-api-key': own.apiKey },
        });
        return res.json<{ data: { data: Record<string, unknown> }[] }>().data[0];
      });
      assert.equal(dead.data.endpointId, endpointId);
      assert.equal(failing.received.length, 3, 'one attempt and two retries');
      const list = await call(t.app, {
        method: 'GET',
        url: `/v1/webhooks/${endpointId}/deliveries?state=dead_lettered`,
        headers: { 'x-api-key': own.apiKey },
      });
      assert.equal(list.json<{ data: unknown[] }>().data.length, 1);
    } finally {
      await failing.close();
    }
  });

  test('console routes, test event and actions reach the same endpoints', async () => {
    const own = await createTestTenant(t);
    const made = await call(t.app, {
      method: 'POST',
      url: `/api/console/tenants/${own.tenantId}/webhooks`,
      headers: bearer(own.ownerToken),
      payload: { url: receiver.url, secret, eventTypes: null },
    });
    assert.equal(made.statusCode, 201, made.body);
    const id = made.json<{ id: string }>().id;
    const tested = await call(t.app, {
      method: 'POST',
      url: `/api/console/tenants/${own.tenantId}/webhooks/${id}/test`,
      headers: bearer(own.ownerToken),
    });
    assert.equal(tested.statusCode, 202);
    const testDelivery = tested.json<{ id: string }>().id;
    await eventually('the test delivery', () =>
      receiver.received.find((r) => r.headers['x-svc-delivery'] === testDelivery),
    );

    const listed = await call(t.app, {
      method: 'POST',
      url: '/v1/actions/list_webhooks',
      headers: { 'x-api-key': own.apiKey },
      payload: {},
    });
    assert.deepEqual(
      listed.json<{ result: { data: { id: string }[] } }>().result.data.map((e) => e.id),
      [id],
    );
    const noScope = await createApiKey(t, own.tenantId, ['rooms:read']);
    const refused = await call(t.app, {
      method: 'GET',
      url: '/v1/webhooks',
      headers: { 'x-api-key': noScope },
    });
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().error, 'insufficient_scope');

    const removed = await call(t.app, {
      method: 'POST',
      url: '/v1/actions/delete_webhook',
      headers: { 'x-api-key': own.apiKey },
      payload: { arguments: { id } },
    });
    assert.equal(removed.statusCode, 200, removed.body);
    const gone = await call(t.app, {
      method: 'GET',
      url: `/v1/webhooks/${id}`,
      headers: { 'x-api-key': own.apiKey },
    });
    assert.equal(gone.statusCode, 404);
  });
});
