import assert from 'node:assert/strict';
import { bearer } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { defineSecurity } from '../../../../test/support/security-suite.ts';

const own = { sessions: false, roomScoped: false, namesRecords: true } as const;
const list = { sessions: false, roomScoped: false, namesRecords: false } as const;

/** The module's whole security coverage (run by security.test.ts, checked complete by test/platform). */
export const security = defineSecurity({
  module: 'payments',
  async setup(t, tenant) {
    const headers = bearer(tenant.apiKey);
    const create = async (body: Record<string, unknown>, confirm?: string) => {
      const res = await call(t.app, {
        method: 'POST',
        url: '/v1/payments',
        headers,
        payload: {
          amount: 1000,
          currency: 'EUR',
          seller: 'shop',
          customer: { type: 'end_user', id: 'test:payer', identityProvider: 'test' },
          ...body,
        },
      });
      assert.equal(res.statusCode, 201, res.body);
      const id = res.json<{ id: string }>().id;
      if (confirm !== undefined) {
        const confirmed = await call(t.app, {
          method: 'POST',
          url: `/v1/payments/${id}/confirm`,
          headers,
          payload: { paymentMethod: confirm },
        });
        assert.equal(confirmed.statusCode, 200, confirmed.body);
      }
      return id;
    };
    // One succeeded payment: the routes that need another status answer the control with 409.
    return { paymentId: await create({}, 'pm_card_visa'), account: 'seller:shop:payable' };
  },
  routes: [
    {
      method: 'POST',
      url: () => '/v1/payments',
      payload: () => ({ amount: 100, currency: 'EUR' }),
      scope: 'payments:write',
      ...list,
    },
    { method: 'GET', url: () => '/v1/payments', scope: 'payments:read', ...list, sessions: true },
    {
      method: 'GET',
      url: (r) => `/v1/payments/${r.paymentId}`,
      scope: 'payments:read',
      ...own,
      sessions: true,
    },
    {
      method: 'POST',
      url: (r) => `/v1/payments/${r.paymentId}/confirm`,
      payload: () => ({ paymentMethod: 'pm_card_visa' }),
      scope: 'payments:write',
      ...own,
      control: 409,
    },
    {
      method: 'POST',
      url: (r) => `/v1/payments/${r.paymentId}/capture`,
      payload: () => ({}),
      scope: 'payments:write',
      ...own,
      control: 409,
    },
    {
      method: 'POST',
      url: (r) => `/v1/payments/${r.paymentId}/cancel`,
      payload: () => ({}),
      scope: 'payments:write',
      ...own,
      control: 409,
    },
    {
      method: 'POST',
      url: (r) => `/v1/payments/${r.paymentId}/simulate`,
      payload: () => ({ outcome: 'succeeded' }),
      scope: 'payments:write',
      ...own,
      control: 409,
    },
    {
      method: 'POST',
      url: (r) => `/v1/payments/${r.paymentId}/refunds`,
      payload: () => ({ amount: 100 }),
      scope: 'payments:refund',
      ...own,
    },
    {
      method: 'GET',
      url: (r) => `/v1/payments/${r.paymentId}/refunds`,
      scope: 'payments:read',
      ...own,
      sessions: true,
    },
    {
      method: 'PUT',
      url: () => '/v1/payments/providers/stripe',
      payload: () => ({ secretKey: 'sk_test_securitysuite', webhookSecret: 'whsec_securitysuite' }),
      scope: 'payments:write',
      ...list,
    },
    { method: 'GET', url: () => '/v1/payments/providers/stripe', scope: 'payments:write', ...list },
    { method: 'DELETE', url: () => '/v1/payments/providers/stripe', scope: 'payments:write', ...list },
    { method: 'GET', url: () => '/v1/ledger/accounts', scope: 'payments:read', ...list },
    {
      method: 'GET',
      url: (r) => `/v1/ledger/accounts/${r.account}/postings`,
      scope: 'payments:read',
      ...list,
    },
    { method: 'GET', url: () => '/v1/ledger/transactions', scope: 'payments:read', ...list },
    { method: 'GET', url: () => '/v1/ledger/check', scope: 'payments:read', ...list },
  ],
});
