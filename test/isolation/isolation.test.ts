import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, connectSession, createTestTenant, hostedToken, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';

/**
 * Two tenants. Every /v1 and console route that names a resource is called with tenant A's credential on
 * tenant B's ids: it must answer 404 and never show B's data. A new route with a path parameter fails
 * the completeness check below until it is added here.
 */
interface Fixture {
  roomId: string;
  eventId: string;
  apiKeyId: string;
  productKeyId: string;
  memberUserId: string;
  invitationId: string;
  messageId: string;
  webhookId: string;
  deliveryId: string;
  auctionId: string;
  secretMarker: string;
}

type Case = (b: Fixture) => {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  payload?: Record<string, unknown>;
};

describe('tenant isolation', () => {
  let t: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let fixture: Fixture;
  let aSession: string;

  /** Tenant A's credentials, as each route family accepts them. */
  const asA = {
    key: () => ({ 'x-api-key': a.apiKey }),
    console: () => bearer(a.ownerToken),
  };

  before(async () => {
    t = await buildTestApp();
    a = await createTestTenant(t, { name: 'Tenant A' });
    b = await createTestTenant(t, { name: 'Tenant B' });
    const marker = `secret-of-b-${Date.now()}`;
    const bKey = { 'x-api-key': b.apiKey };
    const room = await call(t.app, {
      method: 'POST',
      url: '/v1/rooms',
      headers: bKey,
      payload: { id: 'shared-name', name: marker, metadata: { marker } },
    });
    assert.equal(room.statusCode, 201);
    const ev = await call(t.app, { method: 'GET', url: '/v1/events?limit=1', headers: bKey });
    const key = await call(t.app, {
      method: 'POST',
      url: `/api/console/tenants/${b.tenantId}/api-keys`,
      headers: bearer(b.ownerToken),
      payload: { name: marker, scopes: ['rooms:read'] },
    });
    const pk = await call(t.app, {
      method: 'POST',
      url: `/api/console/tenants/${b.tenantId}/product-keys`,
      headers: bearer(b.ownerToken),
      payload: { name: marker },
    });
    const inv = await call(t.app, {
      method: 'POST',
      url: `/api/console/tenants/${b.tenantId}/members`,
      headers: bearer(b.ownerToken),
      payload: { email: `${marker}@example.test`, role: 'viewer' },
    });
    const message = await call(t.app, {
      method: 'POST',
      url: '/v1/rooms/shared-name/messages',
      headers: bKey,
      payload: { text: marker, actor: { type: 'agent', id: 'b:author', identityProvider: 'test' } },
    });
    assert.equal(message.statusCode, 201, message.body);
    const hook = await call(t.app, {
      method: 'POST',
      url: '/v1/webhooks',
      headers: bKey,
      payload: {
        url: `https://example.test/${marker}`,
        secret: `${marker}-secret-0123456789`,
        eventTypes: ['app.*'],
      },
    });
    assert.equal(hook.statusCode, 201, hook.body);
    const webhookId = hook.json<{ id: string }>().id;
    const auction = await call(t.app, {
      method: 'POST',
      url: '/v1/auctions',
      headers: bKey,
      payload: {
        roomId: 'shared-name',
        title: marker,
        currency: 'EUR',
        startingPrice: 100,
        buyNowPrice: 10_000,
        durationSeconds: 600,
      },
    });
    assert.equal(auction.statusCode, 201, auction.body);
    const auctionId = auction.json<{ id: string }>().id;
    const started = await call(t.app, {
      method: 'POST',
      url: `/v1/auctions/${auctionId}/start`,
      headers: bKey,
    });
    assert.equal(started.statusCode, 200, started.body);
    const test = await call(t.app, { method: 'POST', url: `/v1/webhooks/${webhookId}/test`, headers: bKey });
    assert.equal(test.statusCode, 202, test.body);
    fixture = {
      roomId: 'shared-name',
      eventId: ev.json<{ data: { id: string }[] }>().data[0]?.id ?? '',
      apiKeyId: key.json<{ id: string }>().id,
      productKeyId: pk.json<{ id: string }>().id,
      memberUserId: b.ownerUserId,
      invitationId: inv.json<{ invitationId: string }>().invitationId,
      messageId: message.json<{ id: string }>().id,
      webhookId,
      deliveryId: test.json<{ id: string }>().id,
      auctionId,
      secretMarker: marker,
    };
    aSession = (await connectSession(t, a.apiKey, { modules: ['rooms', 'auctions'] })).token;
  });
  after(() => t.close());

  /** Routes with an API-key credential, keyed by `METHOD url`. */
  const apiCases: Record<string, Case> = {
    'GET /v1/rooms/:roomId': (f) => ({ method: 'GET', url: `/v1/rooms/${f.roomId}` }),
    'PATCH /v1/rooms/:roomId': (f) => ({
      method: 'PATCH',
      url: `/v1/rooms/${f.roomId}`,
      payload: { name: 'x' },
    }),
    'DELETE /v1/rooms/:roomId': (f) => ({ method: 'DELETE', url: `/v1/rooms/${f.roomId}` }),
    'GET /v1/events/:eventId': (f) => ({ method: 'GET', url: `/v1/events/${f.eventId}` }),
    'GET /v1/rooms/:roomId/presence': (f) => ({ method: 'GET', url: `/v1/rooms/${f.roomId}/presence` }),
    'POST /v1/rooms/:roomId/messages': (f) => ({
      method: 'POST',
      url: `/v1/rooms/${f.roomId}/messages`,
      payload: { text: 'intrusion', actor: { type: 'agent', id: 'a:intruder', identityProvider: 'test' } },
    }),
    'GET /v1/rooms/:roomId/messages': (f) => ({ method: 'GET', url: `/v1/rooms/${f.roomId}/messages` }),
    'GET /v1/sync/:roomId': (f) => ({ method: 'GET', url: `/v1/sync/${f.roomId}` }),
    'GET /v1/sync/:roomId/:docName': (f) => ({ method: 'GET', url: `/v1/sync/${f.roomId}/notes` }),
    'GET /v1/rooms/:roomId/ydoc': (f) => ({ method: 'GET', url: `/v1/rooms/${f.roomId}/ydoc` }),
    'GET /v1/rooms/:roomId/ydoc-binary': (f) => ({ method: 'GET', url: `/v1/rooms/${f.roomId}/ydoc-binary` }),
    'PUT /v1/rooms/:roomId/ydoc-binary': (f) => ({
      method: 'PUT',
      url: `/v1/rooms/${f.roomId}/ydoc-binary`,
      payload: { update: 'AAA=' },
    }),
    'PATCH /v1/rooms/:roomId/messages/:messageId': (f) => ({
      method: 'PATCH',
      url: `/v1/rooms/${f.roomId}/messages/${f.messageId}`,
      payload: { text: 'edited by A' },
    }),
    'DELETE /v1/rooms/:roomId/messages/:messageId': (f) => ({
      method: 'DELETE',
      url: `/v1/rooms/${f.roomId}/messages/${f.messageId}`,
    }),
    'POST /v1/rooms/:roomId/messages/:messageId/reactions/:emoji': (f) => ({
      method: 'POST',
      url: `/v1/rooms/${f.roomId}/messages/${f.messageId}/reactions/${encodeURIComponent('👍')}?actor=a:intruder`,
    }),
    'DELETE /v1/rooms/:roomId/messages/:messageId/reactions/:emoji': (f) => ({
      method: 'DELETE',
      url: `/v1/rooms/${f.roomId}/messages/${f.messageId}/reactions/${encodeURIComponent('👍')}?actor=b:author`,
    }),
    ...webhookCases('/v1'),
    ...auctionCases(),
  };

  /** The auction routes: A's key on B's live auction. */
  function auctionCases(): Record<string, Case> {
    const intruder = { type: 'end_user', id: 'a:intruder', identityProvider: 'test' };
    const at = (f: Fixture, tail = '') => `/v1/auctions/${f.auctionId}${tail}`;
    return {
      'GET /v1/auctions/:auctionId': (f) => ({ method: 'GET', url: at(f) }),
      'PATCH /v1/auctions/:auctionId': (f) => ({ method: 'PATCH', url: at(f), payload: { title: 'x' } }),
      'DELETE /v1/auctions/:auctionId': (f) => ({ method: 'DELETE', url: at(f) }),
      'POST /v1/auctions/:auctionId/schedule': (f) => ({
        method: 'POST',
        url: at(f, '/schedule'),
        payload: { startsAt: new Date(Date.now() + 86_400_000).toISOString() },
      }),
      'POST /v1/auctions/:auctionId/start': (f) => ({ method: 'POST', url: at(f, '/start') }),
      'POST /v1/auctions/:auctionId/cancel': (f) => ({ method: 'POST', url: at(f, '/cancel'), payload: {} }),
      'POST /v1/auctions/:auctionId/bids': (f) => ({
        method: 'POST',
        url: at(f, '/bids'),
        payload: { amount: 5000, actor: intruder },
      }),
      'GET /v1/auctions/:auctionId/bids': (f) => ({ method: 'GET', url: at(f, '/bids') }),
      'POST /v1/auctions/:auctionId/buy-now': (f) => ({
        method: 'POST',
        url: at(f, '/buy-now'),
        payload: { actor: intruder },
      }),
    };
  }

  /** The webhook routes, the same under /v1 and the console. */
  function webhookCases(prefix: string): Record<string, Case> {
    const at = () => (prefix === '/v1' ? '/v1' : `/api/console/tenants/${b.tenantId}`);
    return {
      [`GET ${prefix}/webhooks/:webhookId`]: (f) => ({
        method: 'GET',
        url: `${at()}/webhooks/${f.webhookId}`,
      }),
      [`PATCH ${prefix}/webhooks/:webhookId`]: (f) => ({
        method: 'PATCH',
        url: `${at()}/webhooks/${f.webhookId}`,
        payload: { enabled: false },
      }),
      [`DELETE ${prefix}/webhooks/:webhookId`]: (f) => ({
        method: 'DELETE',
        url: `${at()}/webhooks/${f.webhookId}`,
      }),
      [`POST ${prefix}/webhooks/:webhookId/rotate-secret`]: (f) => ({
        method: 'POST',
        url: `${at()}/webhooks/${f.webhookId}/rotate-secret`,
        payload: { secret: 'a-new-secret-of-tenant-a' },
      }),
      [`POST ${prefix}/webhooks/:webhookId/test`]: (f) => ({
        method: 'POST',
        url: `${at()}/webhooks/${f.webhookId}/test`,
      }),
      [`GET ${prefix}/webhooks/:webhookId/deliveries`]: (f) => ({
        method: 'GET',
        url: `${at()}/webhooks/${f.webhookId}/deliveries`,
      }),
      [`GET ${prefix}/webhook-deliveries/:deliveryId`]: (f) => ({
        method: 'GET',
        url: `${at()}/webhook-deliveries/${f.deliveryId}`,
      }),
      [`POST ${prefix}/webhook-deliveries/:deliveryId/redeliver`]: (f) => ({
        method: 'POST',
        url: `${at()}/webhook-deliveries/${f.deliveryId}/redeliver`,
      }),
    };
  }

  /** Console routes: tenant A's owner aims at tenant B's tenant id. */
  const consoleCases: Record<string, Case> = {
    'GET /api/console/tenants/:tenantId': () => ({
      method: 'GET',
      url: `/api/console/tenants/${b.tenantId}`,
    }),
    'GET /api/console/tenants/:tenantId/api-keys': () => ({
      method: 'GET',
      url: `/api/console/tenants/${b.tenantId}/api-keys`,
    }),
    'POST /api/console/tenants/:tenantId/api-keys': () => ({
      method: 'POST',
      url: `/api/console/tenants/${b.tenantId}/api-keys`,
      payload: { name: 'x', scopes: ['*'] },
    }),
    'DELETE /api/console/tenants/:tenantId/api-keys/:keyId': (f) => ({
      method: 'DELETE',
      url: `/api/console/tenants/${b.tenantId}/api-keys/${f.apiKeyId}`,
    }),
    'GET /api/console/tenants/:tenantId/members': () => ({
      method: 'GET',
      url: `/api/console/tenants/${b.tenantId}/members`,
    }),
    'POST /api/console/tenants/:tenantId/members': () => ({
      method: 'POST',
      url: `/api/console/tenants/${b.tenantId}/members`,
      payload: { email: 'intruder@example.test', role: 'owner' },
    }),
    'PATCH /api/console/tenants/:tenantId/members/:userId': (f) => ({
      method: 'PATCH',
      url: `/api/console/tenants/${b.tenantId}/members/${f.memberUserId}`,
      payload: { role: 'viewer' },
    }),
    'DELETE /api/console/tenants/:tenantId/members/:userId': (f) => ({
      method: 'DELETE',
      url: `/api/console/tenants/${b.tenantId}/members/${f.memberUserId}`,
    }),
    'DELETE /api/console/tenants/:tenantId/invitations/:invitationId': (f) => ({
      method: 'DELETE',
      url: `/api/console/tenants/${b.tenantId}/invitations/${f.invitationId}`,
    }),
    'GET /api/console/tenants/:tenantId/product-keys': () => ({
      method: 'GET',
      url: `/api/console/tenants/${b.tenantId}/product-keys`,
    }),
    'POST /api/console/tenants/:tenantId/product-keys': () => ({
      method: 'POST',
      url: `/api/console/tenants/${b.tenantId}/product-keys`,
      payload: { name: 'x' },
    }),
    'DELETE /api/console/tenants/:tenantId/product-keys/:productKeyId': (f) => ({
      method: 'DELETE',
      url: `/api/console/tenants/${b.tenantId}/product-keys/${f.productKeyId}`,
    }),
    'GET /api/console/tenants/:tenantId/modules': () => ({
      method: 'GET',
      url: `/api/console/tenants/${b.tenantId}/modules`,
    }),
    'PUT /api/console/tenants/:tenantId/modules/:module': () => ({
      method: 'PUT',
      url: `/api/console/tenants/${b.tenantId}/modules/rooms`,
      payload: { enabled: false },
    }),
    'GET /api/console/tenants/:tenantId/events': () => ({
      method: 'GET',
      url: `/api/console/tenants/${b.tenantId}/events`,
    }),
    'GET /api/console/tenants/:tenantId/mcp-policy': () => ({
      method: 'GET',
      url: `/api/console/tenants/${b.tenantId}/mcp-policy`,
    }),
    'PUT /api/console/tenants/:tenantId/mcp-policy': () => ({
      method: 'PUT',
      url: `/api/console/tenants/${b.tenantId}/mcp-policy`,
      payload: { confirm: 'required_only' },
    }),
    'POST /api/console/tenants/:tenantId/webhooks': () => ({
      method: 'POST',
      url: `/api/console/tenants/${b.tenantId}/webhooks`,
      payload: { url: 'https://example.test/a', secret: 'tenant-a-secret-0123' },
    }),
    'GET /api/console/tenants/:tenantId/webhooks': () => ({
      method: 'GET',
      url: `/api/console/tenants/${b.tenantId}/webhooks`,
    }),
    ...webhookCases('/api/console/tenants/:tenantId'),
  };

  /** Parameterised routes that name no tenant resource. */
  const notTenantScoped = new Set(['POST /v1/actions/:name', 'GET /docs/*', 'GET /docs/static/*']);

  test('every parameterised tenant route has an isolation case', () => {
    const missing = t.app.routeList
      .filter((r) => r.url.includes(':') || r.url.includes('*'))
      .map((r) => `${r.method} ${r.url}`)
      .filter((r) => !(r in apiCases) && !(r in consoleCases) && !notTenantScoped.has(r));
    assert.deepEqual([...new Set(missing)], [], 'add these routes to the isolation cases');
  });

  test("tenant A's API key on tenant B's resources -> 404, nothing of B shown", async () => {
    for (const [name, make] of Object.entries(apiCases)) {
      const { method, url, payload } = make(fixture);
      const res = await call(t.app, {
        method,
        url,
        headers: asA.key(),
        ...(payload === undefined ? {} : { payload }),
      });
      assert.equal(res.statusCode, 404, `${name}: ${res.body}`);
      assert.equal(res.json().error, 'not_found', name);
      assert.doesNotMatch(res.body, new RegExp(fixture.secretMarker), name);
    }
  });

  test("tenant A's owner on tenant B's console routes -> 404, nothing of B shown", async () => {
    for (const [name, make] of Object.entries(consoleCases)) {
      const { method, url, payload } = make(fixture);
      const res = await call(t.app, {
        method,
        url,
        headers: asA.console(),
        ...(payload === undefined ? {} : { payload }),
      });
      assert.equal(res.statusCode, 404, `${name}: ${res.body}`);
      assert.doesNotMatch(res.body, new RegExp(fixture.secretMarker), name);
    }
  });

  test("B's resources are untouched by A's attempts", async () => {
    const bKey = { 'x-api-key': b.apiKey };
    const room = await call(t.app, { method: 'GET', url: `/v1/rooms/${fixture.roomId}`, headers: bKey });
    assert.equal(room.json<{ name: string }>().name, fixture.secretMarker);
    const modules = await call(t.app, { method: 'GET', url: '/v1/rooms', headers: bKey });
    assert.equal(modules.statusCode, 200);
    const keys = await call(t.app, {
      method: 'GET',
      url: `/api/console/tenants/${b.tenantId}/api-keys`,
      headers: bearer(b.ownerToken),
    });
    const auction = await call(t.app, {
      method: 'GET',
      url: `/v1/auctions/${fixture.auctionId}`,
      headers: bKey,
    });
    assert.equal(auction.json<{ status: string; bidCount: number }>().status, 'live');
    assert.equal(auction.json<{ bidCount: number }>().bidCount, 0);
    const revoked = keys
      .json<{ data: { id: string; revokedAt: string | null }[] }>()
      .data.find((k) => k.id === fixture.apiKeyId);
    assert.equal(revoked?.revokedAt, null);
  });

  test("lists and actions under A's credentials never include B's rows", async () => {
    const sameId = await call(t.app, {
      method: 'POST',
      url: '/v1/rooms',
      headers: asA.key(),
      payload: { id: fixture.roomId },
    });
    assert.equal(sameId.statusCode, 201, 'the same room id is free in another tenant');
    for (const headers of [asA.key(), bearer(aSession)]) {
      for (const url of [
        '/v1/rooms',
        '/v1/rooms?limit=100',
        `/v1/rooms?metadata.marker=${fixture.secretMarker}`,
        '/v1/auctions?limit=100',
        '/v1/auctions?roomId=shared-name',
      ]) {
        const res = await call(t.app, { method: 'GET', url, headers });
        assert.equal(res.statusCode, 200, url);
        assert.doesNotMatch(res.body, new RegExp(fixture.secretMarker), url);
      }
    }
    const events = await call(t.app, { method: 'GET', url: '/v1/events?limit=100', headers: asA.key() });
    assert.doesNotMatch(events.body, new RegExp(fixture.secretMarker));
    const action = await call(t.app, {
      method: 'POST',
      url: '/v1/actions/get_room',
      headers: asA.key(),
      payload: { arguments: { roomId: fixture.roomId } },
    });
    assert.doesNotMatch(action.body, new RegExp(fixture.secretMarker));
    const stranger = await hostedToken(t);
    const mine = await call(t.app, { method: 'GET', url: '/api/console/tenants', headers: bearer(stranger) });
    assert.deepEqual(mine.json(), { data: [] });
  });
});
