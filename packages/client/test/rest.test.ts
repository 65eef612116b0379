import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { connectSession, createTestTenant } from '../../../test/factories.ts';
import { buildTestApp } from '../../../test/helper.ts';
import { suiteFixture } from '../../../test/support/suite.ts';
import { createClient, type ErrorCode, IDEMPOTENCY_KEY_HEADER, SvcError } from '../src/index.ts';

/** Every request the client sent, as the service received it (method, path, the headers that matter). */
interface Sent {
  method: string;
  path: string;
  idempotencyKey: string | null;
  authorization: string | null;
}

function recordingFetch(sent: Sent[]) {
  return (request: Request) => {
    const url = new URL(request.url);
    sent.push({
      method: request.method,
      path: url.pathname + url.search,
      idempotencyKey: request.headers.get(IDEMPOTENCY_KEY_HEADER),
      authorization: request.headers.get('authorization'),
    });
    return fetch(request);
  };
}

describe('@svc/client REST against the service', () => {
  const service = suiteFixture(
    'service',
    async () => {
      const t = await buildTestApp();
      const tenant = await createTestTenant(t);
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = t.app.server.address() as AddressInfo;
      return { t, tenant, baseUrl: `http://127.0.0.1:${port}` };
    },
    ({ t }) => t.close(),
  );
  const client = (sent: Sent[] = []) =>
    createClient({
      baseUrl: service().baseUrl,
      apiKey: service().tenant.apiKey,
      fetch: recordingFetch(sent),
    });

  test('rooms: create, read, and paginate a list longer than a page, following nextCursor', async () => {
    const sent: Sent[] = [];
    const svc = client(sent);
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { data, error } = await svc.POST('/v1/rooms', { body: { name: `Room ${i}`, metadata: { i } } });
      assert.equal(error, undefined);
      assert.ok(data);
      created.push(data.id);
    }
    const one = await svc.GET('/v1/rooms/{roomId}', { params: { path: { roomId: created[0] ?? '' } } });
    assert.equal(one.data?.name, 'Room 0');

    const firstPage = await svc.GET('/v1/rooms', { params: { query: { limit: 2 } } });
    assert.equal(firstPage.data?.data.length, 2);
    assert.equal(typeof firstPage.data?.nextCursor, 'string');

    const all = await svc.GET('/v1/rooms', { params: { query: { limit: 100 } } });
    sent.length = 0;
    const walked: string[] = [];
    for await (const room of svc.paginate('/v1/rooms', { params: { query: { limit: 2 } } }))
      walked.push(room.id);
    assert.deepEqual(
      walked,
      all.data?.data.map((room) => room.id),
    );
    for (const id of created) assert.ok(walked.includes(id), `paginate missed ${id}`);
    assert.equal(new Set(walked).size, walked.length, 'paginate yielded a room twice');
    const pages = sent.filter((s) => s.path.startsWith('/v1/rooms?'));
    assert.ok(pages.length >= 3, `expected >= 3 pages of 2, got ${pages.length}`);
    assert.ok(!pages[0]?.path.includes('cursor='), 'the first page is asked without a cursor');
    assert.ok(
      pages.slice(1).every((p) => p.path.includes('cursor=')),
      'later pages pass the cursor',
    );
  });

  test('chat: send a message and read it back', async () => {
    const svc = client();
    const room = await svc.POST('/v1/rooms', { body: { name: 'chat' } });
    const roomId = room.data?.id ?? '';
    const sent = await svc.POST('/v1/rooms/{roomId}/messages', {
      params: { path: { roomId } },
      body: {
        text: 'hello from the SDK',
        actor: { type: 'end_user', id: 'sdk:alice', identityProvider: 'sdk' },
      },
    });
    assert.equal(sent.error, undefined, JSON.stringify(sent.error));
    const list = await svc.GET('/v1/rooms/{roomId}/messages', { params: { path: { roomId } } });
    assert.deepEqual(
      list.data?.data.map((m) => m.text),
      ['hello from the SDK'],
    );
  });

  test('auctions: create, start and bid; the bid POST carries an automatic Idempotency-Key', async () => {
    const sent: Sent[] = [];
    const svc = client(sent);
    const room = await svc.POST('/v1/rooms', { body: { name: 'auction room' } });
    const auction = await svc.POST('/v1/auctions', {
      body: {
        roomId: room.data?.id ?? '',
        title: 'Signed LP',
        currency: 'EUR',
        startingPrice: 1000,
        durationSeconds: 600,
      },
    });
    assert.equal(auction.error, undefined, JSON.stringify(auction.error));
    const auctionId = auction.data?.id ?? '';
    const started = await svc.POST('/v1/auctions/{auctionId}/start', { params: { path: { auctionId } } });
    assert.equal(started.data?.status, 'live', JSON.stringify(started.error));
    const bid = await svc.POST('/v1/auctions/{auctionId}/bids', {
      params: { path: { auctionId } },
      body: { amount: 1500, actor: { type: 'end_user', id: 'sdk:bob', identityProvider: 'sdk' } },
    });
    assert.equal(bid.error, undefined, JSON.stringify(bid.error));
    const bidRequest = sent.find((s) => s.path.endsWith('/bids'));
    assert.match(bidRequest?.idempotencyKey ?? '', /^[0-9a-f-]{32,36}$/);
    // Only operations that take the header get one: creating a room or an auction does not.
    assert.equal(sent.find((s) => s.path === '/v1/auctions')?.idempotencyKey, null);
    const bids = await svc.GET('/v1/auctions/{auctionId}/bids', { params: { path: { auctionId } } });
    assert.equal(bids.data?.data.length, 1);
  });

  test('webhooks: create, list, read and delete an endpoint', async () => {
    const svc = client();
    const created = await svc.POST('/v1/webhooks', {
      body: {
        url: 'https://example.test/hooks',
        secret: 'a-secret-of-16-chars-or-more',
        eventTypes: ['room.*'],
      },
    });
    assert.equal(created.error, undefined, JSON.stringify(created.error));
    const webhookId = created.data?.id ?? '';
    const list = await svc.GET('/v1/webhooks');
    assert.ok(list.data?.data.some((w) => w.id === webhookId));
    const one = await svc.GET('/v1/webhooks/{webhookId}', { params: { path: { webhookId } } });
    assert.equal(one.data?.url, 'https://example.test/hooks');
    const deleted = await svc.DELETE('/v1/webhooks/{webhookId}', { params: { path: { webhookId } } });
    assert.equal(deleted.response.ok, true);
    const gone = await svc.GET('/v1/webhooks/{webhookId}', { params: { path: { webhookId } } });
    assert.equal(gone.error?.error, 'not_found');
  });

  test('payments: a POST whose answer is lost is retried with the same key and answered by the replay', async () => {
    const sent: Sent[] = [];
    let lost = false;
    const svc = createClient({
      baseUrl: service().baseUrl,
      apiKey: service().tenant.apiKey,
      retry: { sleep: async () => {} },
      fetch: async (request) => {
        const response = await recordingFetch(sent)(request);
        if (request.method !== 'POST' || lost) return response;
        // The payment is made, but its answer never reaches the app: a proxy answers 503 instead.
        lost = true;
        return new Response('{"error":"service_unavailable"}', {
          status: 503,
          headers: { 'Retry-After': '0' },
        });
      },
    });
    const created = await svc.POST('/v1/payments', { body: { amount: 2500, currency: 'EUR' } });
    assert.equal(created.response.status, 201, JSON.stringify(created.error));
    assert.equal(created.response.headers.get('idempotent-replayed'), 'true');
    const posts = sent.filter((s) => s.method === 'POST');
    assert.equal(posts.length, 2);
    assert.ok(posts[0]?.idempotencyKey);
    assert.equal(posts[1]?.idempotencyKey, posts[0]?.idempotencyKey);
    const payments = await svc.GET('/v1/payments', { params: { query: { limit: 100 } } });
    assert.deepEqual(
      payments.data?.data.map((p) => p.id),
      [created.data?.id],
      'one payment, however many attempts',
    );

    const confirmed = await svc.POST('/v1/payments/{paymentId}/confirm', {
      params: { path: { paymentId: created.data?.id ?? '' } },
      body: { paymentMethod: 'pm_card_visa' },
    });
    assert.equal(confirmed.data?.status, 'succeeded', JSON.stringify(confirmed.error));
  });

  test('errors are typed: 404 not_found, 400 invalid_request with details', async () => {
    const svc = client();
    const missing = await svc.GET('/v1/rooms/{roomId}', { params: { path: { roomId: 'no-such-room' } } });
    assert.equal(missing.data, undefined);
    const code: ErrorCode | undefined = missing.error?.error;
    assert.equal(code, 'not_found');
    assert.equal(missing.response.status, 404);
    assert.equal(typeof missing.error?.requestId, 'string');

    const invalid = await svc.POST('/v1/payments', { body: { amount: 2500, currency: 'ZZZ' } });
    assert.equal(invalid.error?.error, 'invalid_request');
    assert.equal(invalid.error?.details?.[0]?.field, '/body/currency');
    assert.equal(invalid.error?.details?.[0]?.code, 'unknown_currency');
  });

  test('throwOnError: data on success, SvcError with the code, status, details and request id otherwise', async () => {
    const svc = createClient({
      baseUrl: service().baseUrl,
      apiKey: service().tenant.apiKey,
      throwOnError: true,
    });
    const { data } = await svc.POST('/v1/rooms', { body: { name: 'thrown' } });
    assert.equal(data.name, 'thrown');
    await assert.rejects(
      svc.GET('/v1/rooms/{roomId}', { params: { path: { roomId: 'no-such-room' } } }),
      (error: unknown) => {
        assert.ok(error instanceof SvcError);
        assert.equal(error.error, 'not_found');
        assert.equal(error.status, 404);
        assert.ok(error.requestId);
        return true;
      },
    );
    await assert.rejects(
      svc.POST('/v1/payments', { body: { amount: 1, currency: 'ZZZ' } }),
      (error: unknown) => {
        assert.ok(error instanceof SvcError);
        assert.equal(error.error, 'invalid_request');
        assert.equal(error.details[0]?.field, '/body/currency');
        return true;
      },
    );
  });

  test('credentials: getToken is asked before every request; none sends no Authorization', async () => {
    const sent: Sent[] = [];
    let asked = 0;
    const svc = createClient({
      baseUrl: service().baseUrl,
      getToken: async () => {
        asked++;
        return service().tenant.apiKey;
      },
      fetch: recordingFetch(sent),
    });
    assert.equal((await svc.GET('/v1/rooms')).response.status, 200);
    assert.equal((await svc.GET('/v1/webhooks')).response.status, 200);
    assert.equal(asked, 2);
    assert.ok(sent.every((s) => s.authorization === `Bearer ${service().tenant.apiKey}`));

    const anonymous = createClient({ baseUrl: service().baseUrl });
    const refused = await anonymous.GET('/v1/rooms');
    assert.equal(refused.response.status, 401);
    assert.equal(refused.error?.error, 'unauthorized');
  });
  test("a session token (the browser example's calls): post with a clientId, read history and an auction", async () => {
    const server = client();
    const room = await server.POST('/v1/rooms', { body: { name: 'browser' } });
    const roomId = room.data?.id ?? '';
    const auction = await server.POST('/v1/auctions', {
      body: { roomId, title: 'Poster', currency: 'EUR', startingPrice: 500, durationSeconds: 600 },
    });
    const { token } = await connectSession(service().t, service().tenant.apiKey, {
      modules: ['rooms', 'chat', 'auctions'],
      roomId,
    });
    const browser = createClient({ baseUrl: service().baseUrl, getToken: () => token });
    const clientId = crypto.randomUUID();
    const first = await browser.POST('/v1/rooms/{roomId}/messages', {
      params: { path: { roomId } },
      body: { text: 'from the page', clientId },
    });
    assert.equal(first.error, undefined, JSON.stringify(first.error));
    const again = await browser.POST('/v1/rooms/{roomId}/messages', {
      params: { path: { roomId } },
      body: { text: 'from the page', clientId },
    });
    assert.equal(again.data?.id, first.data?.id, 'a send retried with its clientId is stored once');
    const history = await browser.GET('/v1/rooms/{roomId}/messages', {
      params: { path: { roomId }, query: { limit: 50 } },
    });
    assert.deepEqual(
      history.data?.data.map((m) => m.text),
      ['from the page'],
    );
    const seen = await browser.GET('/v1/auctions/{auctionId}', {
      params: { path: { auctionId: auction.data?.id ?? '' } },
    });
    assert.equal(seen.data?.title, 'Poster', JSON.stringify(seen.error));
  });
});
