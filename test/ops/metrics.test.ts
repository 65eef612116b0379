import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { connectSession, createTestTenant, type TestTenant } from '../factories.ts';
import { call } from '../helper.ts';
import { TestClient } from '../realtime-gateway/client.ts';
import { eventually } from '../support/eventually.ts';
import {
  familiesOf,
  type MetricsInstance,
  samplesOf,
  scrape,
  seriesOf,
  startMetricsInstance,
  startReceiver,
} from './metrics-support.ts';

/** Every family issue 32 asks for, each with a sample once the service was exercised. */
const EXERCISED = [
  'svc_http_request_duration_seconds',
  'svc_realtime_connections',
  'svc_sync_connections',
  'svc_websocket_frames_received_total',
  'svc_websocket_frames_sent_total',
  'svc_websocket_closes_total',
  'svc_websocket_slow_consumer_drops_total',
  'svc_webhook_deliveries_total',
  'svc_webhook_queue_depth',
  'svc_webhook_oldest_pending_age_seconds',
  'svc_webhook_outbox_lag_seconds',
  'svc_auction_bids_total',
  'svc_payment_transitions_total',
  'svc_analytics_events_total',
  'svc_sync_documents_open',
  'svc_sync_update_bytes_total',
  'svc_db_pool_waiting',
  'svc_group_commit_group_size',
  'svc_redis_up',
  'svc_process_cpu_seconds_total',
  'svc_nodejs_eventloop_lag_seconds',
];

/** The lines of a scrape the exercise waits for, to say which one never came. */
function watched(text: string): string {
  return seriesOf(text)
    .filter((line) => /^svc_(sync_|realtime_connections|webhook_deliveries_total)/.test(line))
    .join('\n');
}

describe('metrics: the internal listener and every family, on a real service', () => {
  let s: MetricsInstance;
  let tenant: TestTenant;
  const key = () => ({ 'x-api-key': tenant.apiKey });

  before(async () => {
    s = await startMetricsInstance();
    tenant = await createTestTenant(s);
  });
  after(async () => {
    await s?.close();
  });

  test('every family has samples after the service was exercised; /healthz and /readyz answer', async () => {
    const receiver = await startReceiver();
    // A failed assertion must not leave the provider reconnecting (the test process would never exit).
    const cleanups: Array<() => void> = [];
    try {
      const hook = await call(s.app, {
        method: 'POST',
        url: '/v1/webhooks',
        headers: key(),
        payload: { url: receiver.url, secret: 'metrics-test-secret-0123', eventTypes: ['room.created'] },
      });
      assert.equal(hook.statusCode, 201, hook.body);
      const roomId = `room-${randomUUID().slice(0, 8)}`;
      const room = await call(s.app, {
        method: 'POST',
        url: '/v1/rooms',
        headers: key(),
        payload: { id: roomId },
      });
      assert.equal(room.statusCode, 201, room.body);

      // Bids: one accepted, one refused (below the minimum).
      const made = await call(s.app, {
        method: 'POST',
        url: '/v1/auctions',
        headers: key(),
        payload: {
          roomId,
          title: 'Lamp',
          currency: 'EUR',
          startingPrice: 1000,
          durationSeconds: 3600,
          increments: [{ from: 0, increment: 100 }],
        },
      });
      assert.equal(made.statusCode, 201, made.body);
      const auctionId = made.json<{ id: string }>().id;
      const started = await call(s.app, {
        method: 'POST',
        url: `/v1/auctions/${auctionId}/start`,
        headers: key(),
      });
      assert.equal(started.statusCode, 200, started.body);
      const bidder = { type: 'end_user', id: 'test:ann', identityProvider: 'test' };
      const bid = (amount: number) =>
        call(s.app, {
          method: 'POST',
          url: `/v1/auctions/${auctionId}/bids`,
          headers: key(),
          payload: { amount, actor: bidder },
        });
      assert.equal((await bid(1000)).statusCode, 201);
      assert.notEqual((await bid(10)).statusCode, 201);

      // A payment: created, then succeeded.
      const payment = await call(s.app, {
        method: 'POST',
        url: '/v1/payments',
        headers: key(),
        payload: { amount: 5000, currency: 'EUR' },
      });
      assert.equal(payment.statusCode, 201, payment.body);
      const paymentId = payment.json<{ id: string }>().id;
      const confirmed = await call(s.app, {
        method: 'POST',
        url: `/v1/payments/${paymentId}/confirm`,
        headers: key(),
        payload: { paymentMethod: 'pm_card_visa' },
      });
      assert.equal(confirmed.statusCode, 200, confirmed.body);

      // Analytics: a batch with a repeated messageId.
      const messageId = `m-${randomUUID()}`;
      const event = { event: 'Viewed', anonymousId: 'anon-1', messageId };
      const ingested = await call(s.app, {
        method: 'POST',
        url: '/v1/analytics/events',
        headers: key(),
        payload: { batch: [event, event] },
      });
      assert.ok(ingested.statusCode < 300, ingested.body);

      // Realtime: join the room, then leave.
      const session = await connectSession(s, tenant.apiKey, { modules: ['rooms', 'presence', 'chat'] });
      const client = await TestClient.connect(
        `${s.publicUrl.replace('http', 'ws')}/v1/realtime`,
        session.token,
      );
      client.send({ type: 'join', room: roomId });
      await client.waitFor((f) => f.type === 'joined', 'joined');

      // Sync: the stock provider edits a document.
      const syncSession = await connectSession(s, tenant.apiKey, { modules: ['sync'] });
      const doc = new Y.Doc();
      const provider = new WebsocketProvider(`${s.publicUrl.replace('http', 'ws')}/v1/sync`, roomId, doc, {
        WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
        params: { token: syncSession.token },
        disableBc: true,
      });
      cleanups.push(
        () => provider.destroy(),
        () => doc.destroy(),
        () => client.socket.terminate(),
      );
      await eventually('the provider to sync', () => provider.synced);
      doc.getText('t').insert(0, 'hello');

      await eventually('the webhook delivered', () => receiver.received() > 0);
      let last = '';
      const during = await eventually(
        () => `sync bytes, documents and connections counted; the last scrape said:\n${watched(last)}`,
        async () => {
          const text = await scrape(s.metricsUrl);
          last = text;
          const ready =
            /^svc_sync_update_bytes_total [1-9]/m.test(text) &&
            /^svc_sync_documents_open 1$/m.test(text) &&
            /^svc_realtime_connections 1$/m.test(text) &&
            /^svc_sync_connections 1$/m.test(text) &&
            /^svc_webhook_deliveries_total\{outcome="delivered"\} 1$/m.test(text);
          return ready ? text : undefined;
        },
      );
      assert.match(during, /^svc_auction_bids_total\{outcome="accepted"\} 1$/m);
      assert.match(during, /^svc_auction_bids_total\{outcome="refused"\} 1$/m);
      assert.match(during, /^svc_payment_transitions_total\{status="created"\} 1$/m);
      assert.match(during, /^svc_payment_transitions_total\{status="succeeded"\} 1$/m);
      assert.match(during, /^svc_analytics_events_total\{result="accepted"\} 1$/m);
      assert.match(during, /^svc_analytics_events_total\{result="duplicate"\} 1$/m);
      assert.match(during, /^svc_webhook_queue_depth\{state="pending"\} \d+$/m);
      assert.match(during, /^svc_group_commit_group_size_count\{queue="auctions.bid"\} [1-9]/m);
      assert.match(during, /^svc_websocket_frames_sent_total\{surface="realtime"\} [1-9]/m);
      assert.match(during, /^svc_websocket_frames_received_total\{surface="sync"\} [1-9]/m);

      provider.destroy();
      doc.destroy(); // the provider's awareness has a timer of its own until its document is destroyed
      client.socket.close(1000);
      const closed = await eventually('both sockets closed', async () => {
        const text = await scrape(s.metricsUrl);
        return /^svc_realtime_connections 0$/m.test(text) && /^svc_sync_connections 0$/m.test(text)
          ? text
          : undefined;
      });
      assert.match(closed, /^svc_websocket_closes_total\{surface="realtime",code="1000"\} 1$/m);
      assert.match(closed, /^svc_websocket_closes_total\{surface="sync",code="\d+"\} 1$/m);
      const families = familiesOf(closed);
      const missing = EXERCISED.filter((name) => !families.has(name));
      assert.deepEqual(missing, [], 'families missing from /metrics');
      const empty = EXERCISED.filter((name) => samplesOf(closed, name).length === 0);
      assert.deepEqual(empty, [], 'families without a sample');

      for (const path of ['/healthz', '/readyz']) {
        const res = await fetch(`${s.metricsUrl}${path}`);
        const publicRes = await call(s.app, { method: 'GET', url: path });
        assert.equal(res.status, publicRes.statusCode, path);
        assert.deepEqual(await res.json(), publicRes.json(), `${path} answers as the public one`);
      }
      assert.equal((await fetch(`${s.metricsUrl}/v1/rooms`)).status, 404, 'the app is not served there');
    } finally {
      for (const cleanup of cleanups) cleanup();
      await receiver.close();
    }
  });

  test('routes are labelled by template; 10,000 random paths add no series; no tenant label anywhere', async () => {
    for (const id of ['room-a1', 'room-b2', 'room-c3']) {
      await call(s.app, { method: 'GET', url: `/v1/rooms/${id}`, headers: key() });
    }
    const before = await scrape(s.metricsUrl);
    const routes = new Set(
      [...before.matchAll(/svc_http_request_duration_seconds_count\{[^}]*route="([^"]*)"/g)].map((m) => m[1]),
    );
    assert.ok(routes.has('/v1/rooms/:roomId'), [...routes].join(', '));
    for (const route of routes) assert.doesNotMatch(route ?? '', /room-[abc]\d/, 'a path, not a template');

    // One unknown path per method first: the `unmatched` series a scanner's paths all share exist then.
    await s.app.inject({ method: 'GET', url: '/scanner-warm-up' });
    await s.app.inject({ method: 'POST', url: '/scanner-warm-up' });
    const warm = await scrape(s.metricsUrl);
    const httpSeries = (text: string) => seriesOf(text).filter((l) => l.startsWith('svc_http_')).length;
    for (let i = 0; i < 10_000; i += 1) {
      const path = `/${randomUUID()}/${i.toString(36)}.php?x=${i}`;
      await s.app.inject({ method: i % 2 === 0 ? 'GET' : 'POST', url: path });
    }
    const afterText = await scrape(s.metricsUrl);
    console.log(
      `series before the flood: ${seriesOf(warm).length} (http ${httpSeries(warm)}); after 10,000 random paths: ${seriesOf(afterText).length} (http ${httpSeries(afterText)})`,
    );
    assert.equal(httpSeries(afterText), httpSeries(warm), '10,000 random paths add no series');
    assert.match(afterText, /route="unmatched"/);
    const labelNames = new Set([...afterText.matchAll(/[{,]([a-z_]+)="/g)].map((m) => m[1]));
    assert.deepEqual(
      [...labelNames].filter((name) => /tenant/i.test(name ?? '')),
      [],
      `no tenant label (labels: ${[...labelNames].join(', ')})`,
    );
    assert.doesNotMatch(afterText, new RegExp(tenant.tenantId), 'no tenant id');
  });

  test('a request is timed from its arrival: a body sent 300 ms after the head counts above 0.25 s', async () => {
    const sample = (text: string, name: string, le?: string) => {
      const labels = `${le === undefined ? '' : `le="${le}",`}method="POST",route="/v1/rooms",status_class="2xx"`;
      const line = seriesOf(text).find((l) =>
        l.startsWith(`svc_http_request_duration_seconds_${name}{${labels}}`),
      );
      return line === undefined ? 0 : Number(line.split(' ').at(-1));
    };
    const before = await scrape(s.metricsUrl);
    const body = JSON.stringify({ id: `slow-${randomUUID().slice(0, 8)}` });
    const status = await new Promise<number>((resolve, reject) => {
      const request = http.request(`${s.publicUrl}/v1/rooms`, {
        method: 'POST',
        headers: { ...key(), 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      });
      request.on('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      // The body leaves 300 ms after the server has the head (not after the client sent it: connecting, or
      // an event loop busy with the embedded database, can delay the head by tens of milliseconds).
      s.app.server.once('request', () => setTimeout(() => request.end(body), 300));
      request.flushHeaders();
    });
    assert.equal(status, 201);
    const after = await scrape(s.metricsUrl);
    assert.equal(sample(after, 'count') - sample(before, 'count'), 1, 'the request is counted once');
    assert.equal(
      sample(after, 'bucket', '0.25') - sample(before, 'bucket', '0.25'),
      0,
      'its duration includes the 300 ms its body took to arrive',
    );
    assert.ok(sample(after, 'sum') - sample(before, 'sum') >= 0.3, 'at least 0.3 s in the sum');
  });

  test('rendering /metrics with every family (time printed, not asserted)', async () => {
    const times: number[] = [];
    for (let i = 0; i < 50; i += 1) {
      const started = performance.now();
      await s.runtime.app.services.metrics?.render();
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const size = (await scrape(s.metricsUrl)).length;
    console.log(
      `render /metrics: median ${times[25]?.toFixed(2)} ms, max ${times.at(-1)?.toFixed(2)} ms (${size} bytes)`,
    );
    assert.ok(size > 0);
  });
});
