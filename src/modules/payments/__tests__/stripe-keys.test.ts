import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer, createApiKey } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { stripeSuite } from './stripe-suite.ts';
import { configurePayments, type ErrorBody } from './support.ts';

const TEST_KEY = 'sk_test_51KeysRouteStandIn0000wxyz';
const LIVE_KEY = 'sk_live_51KeysRouteStandIn0000LIVE';
const WEBHOOK_SECRET = 'whsec_keysRouteSecret0123456789';

interface StripeAccountStatus {
  provider: 'stripe';
  configured: boolean;
  mode: 'test' | 'live' | null;
  livemode: boolean | null;
  secretKeyLast4: string | null;
  updatedAt: string | null;
  webhookUrl: string;
}

describe('payments: reading and removing a tenant’s Stripe keys', () => {
  const s = stripeSuite({ tenants: 2 });
  const other = () => s.tenantAt(1);

  const keys = (apiKey: string, method: 'GET' | 'PUT' | 'DELETE', payload?: Record<string, unknown>) =>
    call(s.t.app, {
      method,
      url: '/v1/payments/providers/stripe',
      headers: bearer(apiKey),
      ...(payload === undefined ? {} : { payload }),
    });
  const status = async (apiKey: string) => {
    const res = await keys(apiKey, 'GET');
    assert.equal(res.statusCode, 200, res.body);
    assert.doesNotMatch(res.body, /sk_(test|live)_|whsec_/, 'never a secret');
    return res.json<StripeAccountStatus>();
  };
  test('GET: not set, then set (test mode, last 4, when), then live mode from the key’s prefix', async () => {
    const none = await status(s.tenant.apiKey);
    assert.deepEqual(
      { ...none, webhookUrl: undefined },
      {
        provider: 'stripe',
        configured: false,
        mode: null,
        livemode: null,
        secretKeyLast4: null,
        updatedAt: null,
        webhookUrl: undefined,
      },
    );
    assert.match(none.webhookUrl, new RegExp(`/v1/payments/webhooks/stripe/${s.tenant.tenantId}$`));

    const set = await keys(s.tenant.apiKey, 'PUT', { secretKey: TEST_KEY, webhookSecret: WEBHOOK_SECRET });
    assert.equal(set.statusCode, 200, set.body);
    const test = await status(s.tenant.apiKey);
    assert.equal(test.configured, true);
    assert.equal(test.mode, 'test');
    assert.equal(test.livemode, false);
    assert.equal(test.secretKeyLast4, 'wxyz');
    assert.equal(test.updatedAt, set.json<{ updatedAt: string }>().updatedAt);

    assert.equal(
      (await keys(s.tenant.apiKey, 'PUT', { secretKey: LIVE_KEY, webhookSecret: WEBHOOK_SECRET })).statusCode,
      200,
    );
    const live = await status(s.tenant.apiKey);
    assert.equal(live.mode, 'live');
    assert.equal(live.livemode, true);
    assert.equal(live.secretKeyLast4, 'LIVE');
  });

  test('isolation: another tenant neither reads nor removes them', async () => {
    assert.equal(
      (await keys(s.tenant.apiKey, 'PUT', { secretKey: TEST_KEY, webhookSecret: WEBHOOK_SECRET })).statusCode,
      200,
    );
    const seen = await status(other().apiKey);
    assert.equal(seen.configured, false, 'the other tenant sees its own (none)');
    assert.equal(seen.secretKeyLast4, null);
    assert.match(seen.webhookUrl, new RegExp(`/stripe/${other().tenantId}$`));
    const removed = await keys(other().apiKey, 'DELETE');
    assert.equal(removed.statusCode, 204, removed.body);
    const still = await status(s.tenant.apiKey);
    assert.equal(still.configured, true);
    assert.equal(still.secretKeyLast4, 'wxyz');
  });

  test('scope: reading or removing them needs payments:write', async () => {
    const readOnly = await createApiKey(s.t, s.tenant.tenantId, ['payments:read']);
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await keys(readOnly, method);
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(res.json<ErrorBody>().error, 'insufficient_scope');
    }
    assert.equal((await status(s.tenant.apiKey)).configured, true);
  });

  test('DELETE: 204, both secrets gone; Stripe payments then answer a clear 409; set again, they work', async () => {
    await configurePayments(s.t, s.tenant, { provider: 'stripe' });
    assert.equal(
      (await keys(s.tenant.apiKey, 'PUT', { secretKey: TEST_KEY, webhookSecret: WEBHOOK_SECRET })).statusCode,
      200,
    );
    const before = await s.createPayment({ amount: 500 });
    assert.match(before.providerRef ?? '', /^pi_/);

    const removed = await keys(s.tenant.apiKey, 'DELETE');
    assert.equal(removed.statusCode, 204);
    assert.equal(removed.body, '');
    const { rows } = await s.t.db.query('select 1 from payment_provider_accounts where tenant_id = $1', [
      s.tenant.tenantId,
    ]);
    assert.equal(rows.length, 0);
    assert.equal((await status(s.tenant.apiKey)).configured, false);
    assert.equal((await keys(s.tenant.apiKey, 'DELETE')).statusCode, 204, 'removing none is not an error');

    const refused = await s.post('/v1/payments', { amount: 500, currency: 'EUR' });
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.json<ErrorBody>().error, 'conflict');
    assert.match(refused.json<ErrorBody>().message, /no Stripe keys: PUT \/v1\/payments\/providers\/stripe/);
    const confirm = await s.act(before.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    assert.equal(confirm.statusCode, 409, confirm.body);
    assert.match(confirm.json<ErrorBody>().message, /no Stripe keys/);

    assert.equal(
      (await keys(s.tenant.apiKey, 'PUT', { secretKey: TEST_KEY, webhookSecret: WEBHOOK_SECRET })).statusCode,
      200,
    );
    const again = await s.createPayment({ amount: 500 });
    assert.match(again.providerRef ?? '', /^pi_/);
    assert.equal(again.livemode, false, 'a test key makes test-mode payments');
    assert.equal(
      (await keys(s.tenant.apiKey, 'PUT', { secretKey: LIVE_KEY, webhookSecret: WEBHOOK_SECRET })).statusCode,
      200,
    );
    const live = await s.createPayment({ amount: 500 });
    assert.equal(live.livemode, true, 'a live key makes live payments');
    assert.equal(
      (await s.get(`/v1/payments/${again.id}`)).json<{ livemode: boolean }>().livemode,
      false,
      'a payment keeps the mode it was made in',
    );
  });
});
