import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { call } from '../../../../test/helper.ts';
import { paymentsSuite } from './support.ts';

interface Operation {
  operationId?: string;
  parameters?: { in: string; name: string }[];
  responses?: Record<string, { description?: string }>;
}

/** The module's routes: its own paths and its console route. */
const isPayments = (url: string) =>
  url.startsWith('/v1/payments') ||
  url.startsWith('/v1/ledger') ||
  url === '/api/console/tenants/:tenantId/payments/ledger-check';
const STRIPE_WEBHOOK = '/v1/payments/webhooks/stripe/:tenantId';

describe('payments in OpenAPI: every route with its errors; every POST honours Idempotency-Key', () => {
  const s = paymentsSuite();
  let paths: Record<string, Record<string, Operation>>;

  before(async () => {
    const res = await call(s.t.app, { method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    paths = res.json<{ paths: Record<string, Record<string, Operation>> }>().paths;
  });

  const routes = () => s.t.app.routeList.filter((r) => isPayments(r.url));
  const operationOf = (method: string, url: string) =>
    paths[url.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()];

  test('every payments route is in the document, with the errors it can answer', () => {
    assert.equal(
      routes().length,
      19,
      routes()
        .map((r) => `${r.method} ${r.url}`)
        .join('\n'),
    );
    for (const { method, url } of routes()) {
      const name = `${method} ${url}`;
      const op = operationOf(method, url);
      assert.ok(op?.operationId, `${name} is documented`);
      const statuses = Object.keys(op.responses ?? {});
      const expected = ['404', '429', '500', '503'];
      if (url !== STRIPE_WEBHOOK) expected.push('401', '403');
      const takesInput =
        url.includes(':') ||
        method === 'POST' ||
        method === 'PUT' ||
        op.parameters?.some((p) => p.in === 'query');
      if (takesInput) expected.push('400');
      if (method === 'POST' || method === 'PUT') expected.push('413', '415');
      for (const status of expected) assert.ok(statuses.includes(status), `${name} documents ${status}`);
      const ok = statuses.filter((s) => s.startsWith('2'));
      assert.equal(ok.length, 1, `${name}: one success status`);
    }
  });

  test('every POST under /v1/payments but Stripe’s webhook takes Idempotency-Key and documents both 409s', () => {
    const posts = routes().filter((r) => r.method === 'POST' && r.url !== STRIPE_WEBHOOK);
    assert.deepEqual(posts.map((r) => r.url).sort(), [
      '/v1/payments',
      '/v1/payments/:paymentId/cancel',
      '/v1/payments/:paymentId/capture',
      '/v1/payments/:paymentId/confirm',
      '/v1/payments/:paymentId/refunds',
      '/v1/payments/:paymentId/simulate',
    ]);
    for (const { method, url } of posts) {
      const op = operationOf(method, url);
      assert.ok(
        op?.parameters?.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key'),
        `${url} documents the header`,
      );
      const conflict = op?.responses?.['409']?.description ?? '';
      assert.match(conflict, /`conflict`/, url);
      assert.match(conflict, /`idempotency_conflict`/, url);
    }
    const webhook = operationOf('POST', STRIPE_WEBHOOK);
    assert.ok(webhook?.responses?.['400'], 'a bad Stripe-Signature is documented');
  });

  test('each of those POSTs replays its first answer to a retry with the key, and runs once', async () => {
    const held = await s.paidPayment({ captureMethod: 'manual' });
    const toCancel = await s.createPayment();
    const processing = await s.createPayment({ paymentMethod: 'pm_card_processing' });
    const toConfirm = await s.createPayment();
    // Each with another valid body, for the same key.
    const calls: [string, Record<string, unknown>, Record<string, unknown>][] = [
      ['/v1/payments', { amount: 321, currency: 'EUR' }, { amount: 322, currency: 'EUR' }],
      [
        `/v1/payments/${toConfirm.id}/confirm`,
        { paymentMethod: 'pm_card_visa' },
        { paymentMethod: 'pm_card_mastercard' },
      ],
      [`/v1/payments/${held.id}/capture`, { amountToCapture: 500 }, { amountToCapture: 400 }],
      [`/v1/payments/${held.id}/refunds`, { amount: 100 }, { amount: 99 }],
      [`/v1/payments/${toCancel.id}/cancel`, {}, { reason: 'duplicate' }],
      [`/v1/payments/${processing.id}/confirm`, {}, { paymentMethod: 'pm_card_processing' }],
      [`/v1/payments/${processing.id}/simulate`, { outcome: 'succeeded' }, { outcome: 'failed' }],
    ];
    for (const [i, [url, body, otherBody]] of calls.entries()) {
      const headers = { 'idempotency-key': `every-post-${i}` };
      const first = await s.post(url, body, headers);
      assert.ok(first.statusCode === 200 || first.statusCode === 201, `${url}: ${first.body}`);
      assert.equal(first.headers['idempotent-replayed'], undefined, url);
      const again = await s.post(url, body, headers);
      assert.equal(again.statusCode, first.statusCode, url);
      assert.equal(again.headers['idempotent-replayed'], 'true', url);
      assert.equal(again.body, first.body, `${url}: byte for byte`);
      const other = await s.post(url, otherBody, headers);
      assert.equal(other.statusCode, 409, `${url}: ${other.body}`);
      assert.equal(other.json<{ error: string }>().error, 'idempotency_conflict', url);
    }
    const refunds = await s.get(`/v1/payments/${held.id}/refunds`);
    assert.equal(refunds.json<{ data: unknown[] }>().data.length, 1, 'the refund ran once');
  });
});
