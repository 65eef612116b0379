import assert from 'node:assert/strict';
import { bearer } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import {
  defineIsolation,
  type IsolationRequest,
  type IsolationWorld,
} from '../../../../test/support/isolation-suite.ts';
import { paymentsClient } from './support.ts';

const payer = { type: 'end_user', id: 'b:payer', identityProvider: 'b' };

/** What a credential's books say: the transactions the check counts, and the payments listed ones name. */
async function books({ t }: IsolationWorld, headers: Record<string, string>) {
  const check = await call(t.app, { method: 'GET', url: '/v1/ledger/check', headers });
  assert.equal(check.statusCode, 200, check.body);
  const txs = await call(t.app, { method: 'GET', url: '/v1/ledger/transactions?limit=100', headers });
  return {
    counted: check.json<{ transactions: number }>().transactions,
    listed: txs.json<{ data: { paymentId: string | null }[] }>().data.map((tx) => tx.paymentId),
  };
}

/** A's request to one of B's payments: `<method> /v1/payments/<B's payment><path>`, with `payload` if given. */
const onPayment =
  (method: 'GET' | 'POST', path: string, payload?: Record<string, unknown>) =>
  (r: { paymentId: string }): IsolationRequest => ({
    method,
    url: `/v1/payments/${r.paymentId}${path}`,
    ...(payload === undefined ? {} : { payload }),
  });

/** Tenant B's succeeded payment (its description the marker) and B's seller account. */
export const isolation = defineIsolation({
  module: 'payments',
  async setup({ inB, marker }) {
    const payment = await inB('/v1/payments', {
      amount: 4200,
      currency: 'EUR',
      description: marker,
      seller: 'b-shop',
      customer: payer,
    });
    const paymentId = payment.json<{ id: string }>().id;
    await inB(`/v1/payments/${paymentId}/confirm`, { paymentMethod: 'pm_card_visa' }, { status: 200 });
    return { paymentId, ledgerAccount: 'seller:b-shop:payable' };
  },
  cases: {
    apiKey: {
      'GET /v1/payments/:paymentId': onPayment('GET', ''),
      'POST /v1/payments/:paymentId/confirm': onPayment('POST', '/confirm', {
        paymentMethod: 'pm_card_visa',
      }),
      'POST /v1/payments/:paymentId/capture': onPayment('POST', '/capture', {}),
      'POST /v1/payments/:paymentId/cancel': onPayment('POST', '/cancel', {}),
      'POST /v1/payments/:paymentId/simulate': onPayment('POST', '/simulate', { outcome: 'succeeded' }),
      'POST /v1/payments/:paymentId/refunds': onPayment('POST', '/refunds', {}),
      'GET /v1/payments/:paymentId/refunds': onPayment('GET', '/refunds'),
      'GET /v1/payments/:paymentId/events': onPayment('GET', '/events'),
      'GET /v1/ledger/accounts/:account/postings': (r) => ({
        method: 'GET',
        url: `/v1/ledger/accounts/${r.ledgerAccount}/postings`,
      }),
    },
    console: {
      'GET /api/console/tenants/:tenantId/payments/ledger-check': (_r, { b }) => ({
        method: 'GET',
        url: `/api/console/tenants/${b.tenantId}/payments/ledger-check`,
      }),
    },
  },
  notTenantScoped: {
    // The tenant proves itself with the Stripe-Signature under its own secret, not with a credential
    // (forged signatures: the module's Stripe tests).
    'POST /v1/payments/webhooks/stripe/:tenantId': 'Stripe names its tenant in the path and signs the body',
  },
  checks: {
    "B's payment is untouched: succeeded, nothing refunded": async ({ t, b }, r) => {
      const payment = await paymentsClient(t, b.apiKey).read(r.paymentId);
      assert.equal(payment.status, 'succeeded');
      assert.equal(payment.amountRefunded, 0);
    },
    "without a record in the path, A's key reads and changes only A's (Stripe keys, the books)": async (
      world,
      r,
    ) => {
      const { t, b, asA, marker } = world;
      const bKey = bearer(b.apiKey);
      const stripe = '/v1/payments/providers/stripe';
      const secret = marker.replace(/[^A-Za-z0-9]/g, '');
      const keys = (method: 'GET' | 'PUT' | 'DELETE', headers: Record<string, string>, payload?: object) =>
        call(t.app, { method, url: stripe, headers, ...(payload === undefined ? {} : { payload }) });
      const set = await keys('PUT', bKey, {
        secretKey: `sk_test_${secret}Bkey`,
        webhookSecret: `whsec_${secret}`,
      });
      assert.equal(set.statusCode, 200, set.body);
      const read = await keys('GET', asA.apiKey());
      assert.equal(read.statusCode, 200, read.body);
      assert.equal(read.json<{ configured: boolean }>().configured, false, "A does not see B's keys");
      assert.doesNotMatch(read.body, /Bkey/);
      const removed = await keys('DELETE', asA.apiKey());
      assert.equal(removed.statusCode, 204);
      const still = await keys('GET', bKey);
      assert.equal(still.json<{ configured: boolean }>().configured, true, "A's DELETE left B's keys");
      assert.equal((await keys('DELETE', bKey)).statusCode, 204);

      const created = await call(t.app, {
        method: 'POST',
        url: '/v1/payments',
        headers: asA.apiKey(),
        payload: { amount: 100, currency: 'EUR', customer: payer },
      });
      assert.equal(created.statusCode, 201, created.body);
      const bList = await call(t.app, {
        method: 'GET',
        url: `/v1/payments?customer=${payer.id}`,
        headers: bKey,
      });
      assert.deepEqual(
        bList.json<{ data: { id: string }[] }>().data.map((p) => p.id),
        [r.paymentId],
        "A's payment is not in B's list",
      );
      const aBooks = await books(world, asA.apiKey());
      assert.equal(aBooks.counted, aBooks.listed.length, "A's check counts A's transactions only");
      assert.ok(!aBooks.listed.includes(r.paymentId));
      const bBooks = await books(world, bKey);
      assert.ok(bBooks.listed.includes(r.paymentId));
      assert.equal(bBooks.counted, bBooks.listed.length);
    },
    "A's payment and ledger lists never show B's": async ({ t, asA, marker }) => {
      for (const url of ['/v1/payments?limit=100', '/v1/ledger/accounts', '/v1/ledger/transactions']) {
        const res = await call(t.app, { method: 'GET', url, headers: asA.apiKey() });
        assert.equal(res.statusCode, 200, url);
        assert.doesNotMatch(res.body, new RegExp(marker), url);
      }
    },
  },
});
