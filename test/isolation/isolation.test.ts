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
  paymentId: string;
  ledgerAccount: string;
  operatorId: string;
  buildId: string;
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
  /** Tenant A's product key (X-SVC-Product-Key). */
  let aProduct: string;

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
        published: true,
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
    const payment = await call(t.app, {
      method: 'POST',
      url: '/v1/payments',
      headers: bKey,
      payload: { amount: 4200, currency: 'EUR', description: marker, seller: 'b-shop', customer: 'b:payer' },
    });
    assert.equal(payment.statusCode, 201, payment.body);
    const paymentId = payment.json<{ id: string }>().id;
    const paid = await call(t.app, {
      method: 'POST',
      url: `/v1/payments/${paymentId}/confirm`,
      headers: bKey,
      payload: { paymentMethod: 'pm_card_visa' },
    });
    assert.equal(paid.statusCode, 200, paid.body);
    const operator = await call(t.app, {
      method: 'POST',
      url: `/api/console/tenants/${b.tenantId}/operators`,
      headers: bearer(b.ownerToken),
      payload: { name: marker, slug: 'b-operator' },
    });
    assert.equal(operator.statusCode, 201, operator.body);
    const operatorId = operator.json<{ id: string }>().id;
    const build = await call(t.app, {
      method: 'POST',
      url: `/api/console/operators/${operatorId}/mobile-build`,
      headers: bearer(b.ownerToken),
      payload: { platform: 'android' },
    });
    assert.equal(build.statusCode, 200, build.body);
    const aProductKey = await call(t.app, {
      method: 'POST',
      url: `/api/console/tenants/${a.tenantId}/product-keys`,
      headers: bearer(a.ownerToken),
      payload: { name: 'a storefront' },
    });
    assert.equal(aProductKey.statusCode, 201, aProductKey.body);
    aProduct = aProductKey.json<{ key: string }>().key;
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
      paymentId,
      ledgerAccount: 'seller:b-shop:payable',
      operatorId,
      buildId: build.json<{ build: { id: string } }>().build.id,
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
    ...paymentCases(),
  };

  /** The payment and ledger routes: A's key on B's succeeded payment and B's seller account. */
  function paymentCases(): Record<string, Case> {
    const at = (f: Fixture, tail = '') => `/v1/payments/${f.paymentId}${tail}`;
    return {
      'GET /v1/payments/:paymentId': (f) => ({ method: 'GET', url: at(f) }),
      'POST /v1/payments/:paymentId/confirm': (f) => ({
        method: 'POST',
        url: at(f, '/confirm'),
        payload: { paymentMethod: 'pm_card_visa' },
      }),
      'POST /v1/payments/:paymentId/capture': (f) => ({
        method: 'POST',
        url: at(f, '/capture'),
        payload: {},
      }),
      'POST /v1/payments/:paymentId/cancel': (f) => ({ method: 'POST', url: at(f, '/cancel'), payload: {} }),
      'POST /v1/payments/:paymentId/simulate': (f) => ({
        method: 'POST',
        url: at(f, '/simulate'),
        payload: { outcome: 'succeeded' },
      }),
      'POST /v1/payments/:paymentId/refunds': (f) => ({
        method: 'POST',
        url: at(f, '/refunds'),
        payload: {},
      }),
      'GET /v1/payments/:paymentId/refunds': (f) => ({ method: 'GET', url: at(f, '/refunds') }),
      'GET /v1/ledger/accounts/:account/postings': (f) => ({
        method: 'GET',
        url: `/v1/ledger/accounts/${f.ledgerAccount}/postings`,
      }),
    };
  }

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
    'PATCH /api/console/tenants/:tenantId/product-keys/:productKeyId': (f) => ({
      method: 'PATCH',
      url: `/api/console/tenants/${b.tenantId}/product-keys/${f.productKeyId}`,
      payload: { name: 'taken' },
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
    'GET /api/console/tenants/:tenantId/payments/ledger-check': () => ({
      method: 'GET',
      url: `/api/console/tenants/${b.tenantId}/payments/ledger-check`,
    }),
    ...storefrontCases(),
  };

  /** The storefront's console routes: A's owner on B's tenant, operators and builds. */
  function storefrontCases(): Record<string, Case> {
    const tenant = () => `/api/console/tenants/${b.tenantId}`;
    const op = (f: Fixture, tail: string) => `/api/console/operators/${f.operatorId}${tail}`;
    return {
      'GET /api/console/tenants/:tenantId/storefront': () => ({
        method: 'GET',
        url: `${tenant()}/storefront`,
      }),
      'PUT /api/console/tenants/:tenantId/storefront': () => ({
        method: 'PUT',
        url: `${tenant()}/storefront`,
        payload: { brand: { name: 'taken' } },
      }),
      'POST /api/console/tenants/:tenantId/operators': () => ({
        method: 'POST',
        url: `${tenant()}/operators`,
        payload: { name: 'x', slug: 'x' },
      }),
      'GET /api/console/tenants/:tenantId/operators': () => ({ method: 'GET', url: `${tenant()}/operators` }),
      'GET /api/console/tenants/:tenantId/operators/:operatorId': (f) => ({
        method: 'GET',
        url: `${tenant()}/operators/${f.operatorId}`,
      }),
      'PATCH /api/console/tenants/:tenantId/operators/:operatorId': (f) => ({
        method: 'PATCH',
        url: `${tenant()}/operators/${f.operatorId}`,
        payload: { name: 'taken' },
      }),
      'DELETE /api/console/tenants/:tenantId/operators/:operatorId': (f) => ({
        method: 'DELETE',
        url: `${tenant()}/operators/${f.operatorId}`,
      }),
      'GET /api/console/operators/:operatorId/storefront': (f) => ({
        method: 'GET',
        url: op(f, '/storefront'),
      }),
      'PUT /api/console/operators/:operatorId/storefront': (f) => ({
        method: 'PUT',
        url: op(f, '/storefront'),
        payload: { brand: { name: 'taken' } },
      }),
      'POST /api/console/operators/:operatorId/product-keys': (f) => ({
        method: 'POST',
        url: op(f, '/product-keys'),
        payload: { name: 'taken' },
      }),
      'GET /api/console/operators/:operatorId/product-keys': (f) => ({
        method: 'GET',
        url: op(f, '/product-keys'),
      }),
      'POST /api/console/operators/:operatorId/mobile-build': (f) => ({
        method: 'POST',
        url: op(f, '/mobile-build'),
        payload: { platform: 'android' },
      }),
      'GET /api/console/operators/:operatorId/mobile-builds': (f) => ({
        method: 'GET',
        url: op(f, '/mobile-builds'),
      }),
    };
  }

  /** The public surface, with tenant A's product key on B's records (the build callback takes none). */
  const productCases: Record<string, Case> = {
    'GET /api/public/auctions/:auctionId': (f) => ({
      method: 'GET',
      url: `/api/public/auctions/${f.auctionId}`,
    }),
    'POST /api/public/mobile-builds/:buildId/callback': (f) => ({
      method: 'POST',
      url: `/api/public/mobile-builds/${f.buildId}/callback`,
      payload: { status: 'succeeded' },
    }),
  };

  /** Parameterised routes that name no tenant resource. */
  // Stripe's webhook names its tenant in the path and proves it with the Stripe-Signature under that
  // tenant's secret, not with a credential (forged signatures: the payments module's Stripe tests).
  const notTenantScoped = new Set([
    'POST /v1/actions/:name',
    'GET /docs/static/:file',
    'POST /v1/payments/webhooks/stripe/:tenantId',
  ]);

  test('every parameterised tenant route has an isolation case', () => {
    const missing = t.app.routeList
      .filter((r) => r.url.includes(':') || r.url.includes('*'))
      .map((r) => `${r.method} ${r.url}`)
      .filter(
        (r) => !(r in apiCases) && !(r in consoleCases) && !(r in productCases) && !notTenantScoped.has(r),
      );
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

  test("tenant A's product key on tenant B's public records -> 404, nothing of B shown", async () => {
    for (const [name, make] of Object.entries(productCases)) {
      const { method, url, payload } = make(fixture);
      const res = await call(t.app, {
        method,
        url,
        headers: { 'x-svc-product-key': aProduct },
        ...(payload === undefined ? {} : { payload }),
      });
      assert.equal(res.statusCode, 404, `${name}: ${res.body}`);
      assert.doesNotMatch(res.body, new RegExp(fixture.secretMarker), name);
    }
    // A's listing and brand never show B's.
    for (const url of ['/api/public/auctions', '/api/public/brand']) {
      const res = await call(t.app, { method: 'GET', url, headers: { 'x-svc-product-key': aProduct } });
      assert.equal(res.statusCode, 200, res.body);
      assert.doesNotMatch(res.body, new RegExp(fixture.secretMarker), url);
      assert.ok(!res.body.includes(fixture.auctionId), url);
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
    const payment = await call(t.app, {
      method: 'GET',
      url: `/v1/payments/${fixture.paymentId}`,
      headers: bKey,
    });
    assert.equal(payment.json<{ status: string }>().status, 'succeeded');
    assert.equal(payment.json<{ amountRefunded: number }>().amountRefunded, 0);
    const revoked = keys
      .json<{ data: { id: string; revokedAt: string | null }[] }>()
      .data.find((k) => k.id === fixture.apiKeyId);
    assert.equal(revoked?.revokedAt, null);
  });

  /** Analytics: A's queries, funnels and actions count none of B's events; B's messageIds do not dedupe A's. */
  async function analyticsCannotCross(): Promise<void> {
    const bKey = { 'x-api-key': b.apiKey };
    const marker = fixture.secretMarker;
    const sent = await call(t.app, {
      method: 'POST',
      url: '/v1/analytics/events',
      headers: bKey,
      payload: {
        batch: [
          {
            event: marker,
            actorId: `b:${marker}`,
            messageId: marker,
            roomId: marker,
            properties: { marker },
          },
          { event: 'shared', actorId: 'b:viewer', properties: { marker } },
        ],
      },
    });
    assert.equal(sent.json<{ accepted: number }>().accepted, 2, sent.body);
    const range = { preset: 'today' };
    for (const payload of [
      { dateRange: range, metrics: ['events', 'uniques'] },
      { dateRange: range, event: [marker, 'shared'], interval: 'hour' },
      { dateRange: range, breakdown: 'marker' },
      { dateRange: range, breakdown: 'roomId' },
      { dateRange: range, filters: [{ property: 'marker', op: 'eq', value: marker }] },
    ]) {
      const res = await call(t.app, {
        method: 'POST',
        url: '/v1/analytics/query',
        headers: asA.key(),
        payload,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.doesNotMatch(res.body, new RegExp(marker));
      assert.equal(res.json<{ totals: { events: number } }>().totals.events, 0, JSON.stringify(payload));
    }
    const funnel = await call(t.app, {
      method: 'POST',
      url: '/v1/analytics/funnel',
      headers: asA.key(),
      payload: { steps: [{ event: marker }, { event: 'shared' }], dateRange: range },
    });
    assert.deepEqual(
      funnel.json<{ steps: { actors: number }[] }>().steps.map((s) => s.actors),
      [0, 0],
    );
    const action = await call(t.app, {
      method: 'POST',
      url: '/v1/actions/analytics_query',
      headers: asA.key(),
      payload: { arguments: { dateRange: range, event: marker } },
    });
    assert.equal(action.statusCode, 200, action.body);
    assert.equal(
      action.json<{ result: { totals: { events: number } } }>().result.totals.events,
      0,
      action.body,
    );
    const mine = await call(t.app, {
      method: 'POST',
      url: '/v1/analytics/events',
      headers: asA.key(),
      payload: { event: 'mine', actorId: 'a:viewer', messageId: marker },
    });
    assert.equal(mine.json<{ accepted: number }>().accepted, 1, "B's messageId is not A's");
  }

  /** Payments' routes that name no record: they act on the caller's tenant only. */
  test("payments without a record in the path: A's key reads and changes only A's (Stripe keys, the books)", async () => {
    const bKey = bearer(b.apiKey);
    const stripe = '/v1/payments/providers/stripe';
    const secret = fixture.secretMarker.replace(/[^A-Za-z0-9]/g, '');
    const set = await call(t.app, {
      method: 'PUT',
      url: stripe,
      headers: bKey,
      payload: {
        secretKey: `sk_test_${secret}Bkey`,
        webhookSecret: `whsec_${secret}`,
      },
    });
    assert.equal(set.statusCode, 200, set.body);
    const read = await call(t.app, { method: 'GET', url: stripe, headers: asA.key() });
    assert.equal(read.statusCode, 200, read.body);
    assert.equal(read.json<{ configured: boolean }>().configured, false, "A does not see B's keys");
    assert.doesNotMatch(read.body, /Bkey/);
    const removed = await call(t.app, { method: 'DELETE', url: stripe, headers: asA.key() });
    assert.equal(removed.statusCode, 204);
    const still = await call(t.app, { method: 'GET', url: stripe, headers: bKey });
    assert.equal(still.json<{ configured: boolean }>().configured, true, "A's DELETE left B's keys");
    assert.equal((await call(t.app, { method: 'DELETE', url: stripe, headers: bKey })).statusCode, 204);

    const created = await call(t.app, {
      method: 'POST',
      url: '/v1/payments',
      headers: asA.key(),
      payload: { amount: 100, currency: 'EUR', customer: 'b:payer' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const bList = await call(t.app, { method: 'GET', url: '/v1/payments?customer=b:payer', headers: bKey });
    assert.deepEqual(
      bList.json<{ data: { id: string }[] }>().data.map((p) => p.id),
      [fixture.paymentId],
      "A's payment is not in B's list",
    );
    const books = async (headers: Record<string, string>) => {
      const check = await call(t.app, { method: 'GET', url: '/v1/ledger/check', headers });
      assert.equal(check.statusCode, 200, check.body);
      const txs = await call(t.app, { method: 'GET', url: '/v1/ledger/transactions?limit=100', headers });
      return {
        counted: check.json<{ transactions: number }>().transactions,
        listed: txs.json<{ data: { paymentId: string | null }[] }>().data.map((tx) => tx.paymentId),
      };
    };
    const aBooks = await books(asA.key());
    assert.equal(aBooks.counted, aBooks.listed.length, "A's check counts A's transactions only");
    assert.ok(!aBooks.listed.includes(fixture.paymentId));
    const bBooks = await books(bKey);
    assert.ok(bBooks.listed.includes(fixture.paymentId));
    assert.equal(bBooks.counted, bBooks.listed.length);
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
    for (const url of ['/v1/payments?limit=100', '/v1/ledger/accounts', '/v1/ledger/transactions']) {
      const res = await call(t.app, { method: 'GET', url, headers: asA.key() });
      assert.equal(res.statusCode, 200, url);
      assert.doesNotMatch(res.body, new RegExp(fixture.secretMarker), url);
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
    await analyticsCannotCross();
    const stranger = await hostedToken(t);
    const mine = await call(t.app, { method: 'GET', url: '/api/console/tenants', headers: bearer(stranger) });
    assert.deepEqual(mine.json(), { data: [] });
  });
});
