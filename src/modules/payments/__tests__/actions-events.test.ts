import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { bearer, createApiKey, createTestTenant } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { connect, mcpUrl, toolError, toolNames } from '../../../../test/mcp/support.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { suiteFixture } from '../../../../test/support/suite.ts';
import { customerActor, type PaymentView, paymentsSuite } from './support.ts';

/** The names issue #15 gives; the module may add more (`payment.amount_capturable_updated`). */
const ISSUE_EVENTS = [
  ...['created', 'requires_action', 'processing', 'succeeded', 'failed', 'canceled'].map(
    (e) => `payment.${e}`,
  ),
  ...['created', 'succeeded', 'failed'].map((e) => `refund.${e}`),
];

describe('payments: the catalog, its actions and the events of cancel and refund', () => {
  const clients: Client[] = [];
  // Registered first: the MCP clients close before the app does.
  after(() => Promise.all(clients.map((c) => c.close())));
  const s = paymentsSuite();

  const action = (name: string, args: Record<string, unknown>, apiKey = s.key) =>
    s.as(apiKey).post(`/v1/actions/${name}`, { arguments: args });

  test('the catalog names every event, scope and action of the issue', async () => {
    const res = await call(s.t.app, { method: 'GET', url: '/v1/modules/catalog' });
    const payments = res
      .json<{ data: { name: string; eventTypes: string[]; scopes: string[]; actions: string[] }[] }>()
      .data.find((m) => m.name === 'payments');
    assert.ok(payments, res.body);
    for (const type of ISSUE_EVENTS) assert.ok(payments.eventTypes.includes(type), type);
    assert.deepEqual(payments.scopes, ['payments:read', 'payments:write', 'payments:refund']);
    assert.deepEqual([...payments.actions].sort(), [
      'create_payment',
      'get_balance',
      'get_payment',
      'list_payments',
      'refund_payment',
    ]);
    const listed = await s.get('/v1/actions');
    const refundAction = listed
      .json<{ data: { name: string; access: string; confirmation: string; scope: string }[] }>()
      .data.find((a) => a.name === 'refund_payment');
    assert.deepEqual(
      [refundAction?.access, refundAction?.confirmation, refundAction?.scope],
      ['destructive', 'always', 'payments:refund'],
    );
  });

  test('cancel emits payment.canceled; a refund emits refund.created then refund.succeeded', async () => {
    const held = await s.paidPayment({ captureMethod: 'manual' });
    const canceled = await s.act(held.id, 'cancel', { reason: 'abandoned' });
    assert.equal(canceled.json<PaymentView>().status, 'canceled', canceled.body);
    assert.deepEqual(await s.eventsOf(held.id), [
      'payment.created',
      'payment.amount_capturable_updated',
      'payment.canceled',
    ]);
    const paid = await s.paidPayment({ amount: 3000 });
    assert.equal((await s.refund(paid.id, { amount: 1000 })).statusCode, 201);
    assert.deepEqual(await s.eventsOf(paid.id), [
      'payment.created',
      'payment.succeeded',
      'refund.created',
      'refund.succeeded',
    ]);
  });

  test('the actions over /v1/actions: each runs under its scope, and only under it', async () => {
    const created = await action('create_payment', {
      amount: 700,
      currency: 'EUR',
      customer: customerActor('test:act'),
    });
    assert.equal(created.statusCode, 200, created.body);
    const payment = created.json<{ result: PaymentView }>().result;
    assert.equal(payment.status, 'requires_payment_method');
    const got = await action('get_payment', { paymentId: payment.id });
    assert.equal(got.json<{ result: PaymentView }>().result.id, payment.id, got.body);
    const listed = await action('list_payments', { customer: 'test:act' });
    assert.deepEqual(
      listed.json<{ result: { data: PaymentView[] } }>().result.data.map((p) => p.id),
      [payment.id],
      listed.body,
    );
    await s.act(payment.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    const refunded = await action('refund_payment', { paymentId: payment.id, amount: 200 });
    assert.equal(refunded.statusCode, 200, refunded.body);
    assert.equal(refunded.json<{ result: { status: string } }>().result.status, 'succeeded');
    const balance = await action('get_balance', { account: 'customer:test:act' });
    assert.equal(balance.statusCode, 200, balance.body);
    assert.match(balance.body, /"balance":-500\b/);

    const writer = await createApiKey(s.t, s.tenant.tenantId, ['payments:read', 'payments:write']);
    const noRefund = await action('refund_payment', { paymentId: payment.id, amount: 1 }, writer);
    assert.equal(noRefund.statusCode, 403, noRefund.body);
    assert.equal(noRefund.json<{ error: string }>().error, 'insufficient_scope');
    const reader = await createApiKey(s.t, s.tenant.tenantId, ['payments:read']);
    const noWrite = await action('create_payment', { amount: 1, currency: 'EUR' }, reader);
    assert.equal(noWrite.statusCode, 403, noWrite.body);
  });

  test('MCP: refund_payment always needs a human, even when the tenant confirms only what modules require', async () => {
    const url = await mcpUrl(s.t);
    const own = await createTestTenant(s.t);
    const policy = await call(s.t.app, {
      method: 'PUT',
      url: `/api/console/tenants/${own.tenantId}/mcp-policy`,
      headers: bearer(own.ownerToken),
      payload: { confirm: 'required_only' },
    });
    assert.equal(policy.statusCode, 200, policy.body);
    const apiKey = await createApiKey(s.t, own.tenantId, [
      'payments:read',
      'payments:write',
      'payments:refund',
    ]);
    const client = await connect(url, apiKey);
    clients.push(client);
    const names = await toolNames(client);
    assert.ok(names.includes('create_payment'), names.join());
    assert.ok(!names.includes('refund_payment'), 'hidden from a key that cannot ask a human');
    const payment = await s.as(apiKey).createPayment();
    const refused = toolError(
      await client.callTool({ name: 'refund_payment', arguments: { paymentId: payment.id } }),
    );
    assert.equal(refused.error, 'insufficient_scope');
    assert.match(refused.message, /refund_payment/);
    const unattended = await connect(
      url,
      await createApiKey(s.t, own.tenantId, ['payments:read', 'payments:refund', 'mcp:unattended']),
    );
    clients.push(unattended);
    assert.ok((await toolNames(unattended)).includes('refund_payment'), 'a key allowed to act unattended');
    const paid = await s.as(apiKey).paidPayment({ amount: 900 });
    const done = await unattended.callTool({ name: 'refund_payment', arguments: { paymentId: paid.id } });
    assert.equal((done.structuredContent as { status?: string } | undefined)?.status, 'succeeded');
  });
});

/** A webhook receiver on a real port: answers 200 and keeps each delivery's JSON body. */
async function startReceiver(): Promise<{
  url: string;
  received: Record<string, unknown>[];
  server: Server;
}> {
  const received: Record<string, unknown>[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', () => {
      received.push(JSON.parse(body) as Record<string, unknown>);
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, server };
}

describe('payments events reach a webhook endpoint (outbox -> webhooks)', () => {
  const s = paymentsSuite({
    config: { webhookRetryScheduleMs: [20, 40], webhookTimeoutMs: 2000 },
    webhookWorker: true,
  });
  const receiver = suiteFixture(
    'the webhook receiver',
    startReceiver,
    ({ server }) => new Promise((resolve) => server.close(resolve)),
  );

  test('payment.* and refund.* subscribed: created, succeeded, refund created and succeeded delivered', async () => {
    const endpoint = await s.post('/v1/webhooks', {
      url: receiver().url,
      secret: 'whsec-payments-0123456789',
      eventTypes: ['payment.*', 'refund.*'],
    });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
    const paid = await s.paidPayment({ amount: 2000 });
    assert.equal((await s.refund(paid.id, { amount: 500 })).statusCode, 201);
    const expected = ['payment.created', 'payment.succeeded', 'refund.created', 'refund.succeeded'];
    const types = await eventually('the four deliveries', () => {
      const got = receiver()
        .received.filter((r) => (r.data as { paymentId?: string }).paymentId === paid.id)
        .map((r) => String(r.type));
      return expected.every((type) => got.includes(type)) ? got : undefined;
    });
    assert.deepEqual([...types].sort(), [...expected].sort());
  });
});
