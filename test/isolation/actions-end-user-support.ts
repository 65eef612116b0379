import assert from 'node:assert/strict';
import { bearer, connectSession, createTestTenant, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { mcpUrl } from '../mcp/support.ts';
import { suiteFixture } from '../support/suite.ts';
import { actorOf, type Fixture, LOBBY, SESSION_MODULES, VAULT } from './actions-end-user-cases.ts';

/** What actions-end-user.test.ts works on: one tenant, its victim's data, and an intruder's two tokens. */
export interface EndUserWorld {
  t: TestApp;
  tenant: TestTenant;
  f: Fixture;
  /** A token for every module, and one limited to another room. */
  tokens: Record<'free' | 'limited', string>;
  mcp: URL;
}

/** Opens the world before the describe's tests (rooms, the victim's message, auction, payment, webhook). */
export function endUserWorld(): () => EndUserWorld {
  return suiteFixture('endUserWorld', openWorld, ({ t }) => t.close());
}

async function openWorld(): Promise<EndUserWorld> {
  const t = await buildTestApp();
  const tenant = await createTestTenant(t, { name: 'one tenant, two end users' });
  const key = { 'x-api-key': tenant.apiKey };
  const marker = `private-${Date.now()}`;
  for (const id of [VAULT, LOBBY]) {
    const room = await call(t.app, { method: 'POST', url: '/v1/rooms', headers: key, payload: { id } });
    assert.equal(room.statusCode, 201, room.body);
  }
  const victim = await connectSession(t, tenant.apiKey, {
    modules: SESSION_MODULES,
    actorId: 'test:victim',
  });
  const message = await call(t.app, {
    method: 'POST',
    url: `/v1/rooms/${VAULT}/messages`,
    headers: bearer(victim.token),
    payload: { text: 'the victim writes' },
  });
  assert.equal(message.statusCode, 201, message.body);
  const auction = await call(t.app, {
    method: 'POST',
    url: '/v1/auctions',
    headers: key,
    payload: { roomId: VAULT, title: 'lot', currency: 'EUR', startingPrice: 100, durationSeconds: 3600 },
  });
  assert.equal(auction.statusCode, 201, auction.body);
  const auctionId = auction.json<{ id: string }>().id;
  const started = await call(t.app, {
    method: 'POST',
    url: `/v1/auctions/${auctionId}/start`,
    headers: key,
  });
  assert.equal(started.statusCode, 200, started.body);
  const payment = await call(t.app, {
    method: 'POST',
    url: '/v1/payments',
    headers: key,
    payload: {
      amount: 4200,
      currency: 'EUR',
      description: marker,
      seller: 'v-shop',
      customer: actorOf('test:victim'),
    },
  });
  assert.equal(payment.statusCode, 201, payment.body);
  const paymentId = payment.json<{ id: string }>().id;
  const paid = await call(t.app, {
    method: 'POST',
    url: `/v1/payments/${paymentId}/confirm`,
    headers: key,
    payload: { paymentMethod: 'pm_card_visa' },
  });
  assert.equal(paid.statusCode, 200, paid.body);
  const hook = await call(t.app, {
    method: 'POST',
    url: '/v1/webhooks',
    headers: key,
    payload: {
      url: `https://example.test/${marker}`,
      secret: `${marker}-secret-0123456789`,
      eventTypes: ['app.*'],
    },
  });
  assert.equal(hook.statusCode, 201, hook.body);
  const f: Fixture = {
    victim: 'test:victim',
    messageId: message.json<{ id: string }>().id,
    auctionId,
    paymentId,
    webhookId: hook.json<{ id: string }>().id,
    marker,
  };
  const options = { modules: SESSION_MODULES, actorId: 'test:intruder' };
  const tokens = {
    free: (await connectSession(t, tenant.apiKey, options)).token,
    limited: (await connectSession(t, tenant.apiKey, { ...options, roomId: LOBBY })).token,
  };
  return { t, tenant, f, tokens, mcp: await mcpUrl(t) };
}
