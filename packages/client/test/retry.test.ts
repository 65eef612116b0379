import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { suiteFixture } from '../../../test/support/suite.ts';
import { createClient, IDEMPOTENCY_KEY_HEADER } from '../src/index.ts';

interface Scripted {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}
interface Received {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  body: string;
}

/** A tiny HTTP server that answers the scripted responses in order (then 200s), recording each request. */
function scriptedServer() {
  const received: Received[] = [];
  let script: Scripted[] = [];
  const server = createServer(async (request: IncomingMessage, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    const header = request.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()];
    received.push({
      method: request.method ?? '',
      path: request.url ?? '',
      idempotencyKey: typeof header === 'string' ? header : undefined,
      body,
    });
    const next = script.shift() ?? { status: 200, body: { data: [], nextCursor: null } };
    response.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
    response.end(
      JSON.stringify(next.body ?? { error: 'service_unavailable', message: 'busy', requestId: 'r' }),
    );
  });
  return {
    received,
    server,
    script(steps: Scripted[]) {
      script = steps;
      received.length = 0;
    },
  };
}

describe('@svc/client retries', () => {
  const fixture = suiteFixture(
    'scripted server',
    async () => {
      const scripted = scriptedServer();
      await new Promise<void>((resolve) => scripted.server.listen(0, '127.0.0.1', resolve));
      const { port } = scripted.server.address() as AddressInfo;
      return { ...scripted, baseUrl: `http://127.0.0.1:${port}` };
    },
    ({ server }) => new Promise((resolve) => server.close(resolve)),
  );
  const clientWaiting = (waits: number[], attempts?: number) =>
    createClient({
      baseUrl: fixture().baseUrl,
      apiKey: 'k',
      retry: {
        ...(attempts === undefined ? {} : { attempts }),
        random: () => 0.5,
        sleep: async (ms) => {
          waits.push(ms);
        },
      },
    });

  test('a GET answered 503 with Retry-After is retried after that many seconds', async () => {
    const waits: number[] = [];
    fixture().script([{ status: 503, headers: { 'Retry-After': '2' } }]);
    const { data, response } = await clientWaiting(waits).GET('/v1/rooms');
    assert.equal(response.status, 200);
    assert.deepEqual(data, { data: [], nextCursor: null });
    assert.equal(fixture().received.length, 2);
    assert.deepEqual(waits, [2000]);
  });

  test('a 429 without Retry-After backs off with jitter, doubling; attempts are bounded', async () => {
    const waits: number[] = [];
    const busy = { status: 429, body: { error: 'rate_limited', message: 'slow down', requestId: 'r' } };
    fixture().script([busy, busy, busy, busy]);
    const result = await clientWaiting(waits, 3).GET('/v1/rooms');
    assert.equal(result.response.status, 429);
    assert.equal(result.error?.error, 'rate_limited');
    assert.equal(fixture().received.length, 3);
    // random() = 0.5 of 500 ms, then of 1000 ms.
    assert.deepEqual(waits, [250, 500]);
  });

  test('a Retry-After longer than the longest wait is handed back, not waited for', async () => {
    const waits: number[] = [];
    fixture().script([{ status: 503, headers: { 'Retry-After': '3600' } }]);
    const result = await clientWaiting(waits).GET('/v1/rooms');
    assert.equal(result.response.status, 503);
    assert.equal(fixture().received.length, 1);
    assert.deepEqual(waits, []);
  });

  test('a POST without an Idempotency-Key is never retried', async () => {
    const waits: number[] = [];
    fixture().script([{ status: 503, headers: { 'Retry-After': '0' } }]);
    const result = await clientWaiting(waits).POST('/v1/rooms', { body: { name: 'once' } });
    assert.equal(result.response.status, 503);
    assert.equal(result.error?.error, 'service_unavailable');
    assert.equal(fixture().received.length, 1);
    assert.equal(fixture().received[0]?.idempotencyKey, undefined);
  });

  test('a keyed POST is retried with the same key and the same body', async () => {
    const waits: number[] = [];
    fixture().script([
      { status: 503, headers: { 'Retry-After': '1' } },
      { status: 201, body: { id: 'pay_1' } },
    ]);
    const result = await clientWaiting(waits).POST('/v1/payments', {
      body: { amount: 2500, currency: 'EUR' },
    });
    assert.equal(result.response.status, 201);
    const [first, second] = fixture().received;
    assert.ok(first?.idempotencyKey);
    assert.equal(second?.idempotencyKey, first.idempotencyKey);
    assert.equal(second?.body, first.body);
    assert.deepEqual(JSON.parse(first.body), { amount: 2500, currency: 'EUR' });
    assert.deepEqual(waits, [1000]);
  });

  test('a key the caller sets is kept; retry: false sends once', async () => {
    fixture().script([{ status: 503 }]);
    const svc = createClient({ baseUrl: fixture().baseUrl, retry: false });
    const result = await svc.POST('/v1/payments', {
      body: { amount: 1, currency: 'EUR' },
      headers: { [IDEMPOTENCY_KEY_HEADER]: 'order-1001' },
    });
    assert.equal(result.response.status, 503);
    assert.equal(fixture().received.length, 1);
    assert.equal(fixture().received[0]?.idempotencyKey, 'order-1001');
  });
});
