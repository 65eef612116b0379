import { defineSecurity, type SecuredRoute } from '../../../../test/support/security-suite.ts';
import { customerActor, paymentsClient } from './support.ts';

const own = { sessions: false, roomScoped: false, namesRecords: true } as const;
const list = { sessions: false, roomScoped: false, namesRecords: false } as const;

/** A change of the setup's succeeded payment: its status refuses every change, so the control is 409. */
function change(action: string, payload: Record<string, unknown>): SecuredRoute<{ paymentId: string }> {
  return {
    method: 'POST',
    url: (r) => `/v1/payments/${r.paymentId}/${action}`,
    payload: () => payload,
    scope: 'payments:write',
    ...own,
    control: 409,
  };
}

/** The module's whole security coverage (run by security.test.ts, checked complete by test/platform). */
export const security = defineSecurity({
  module: 'payments',
  async setup(t, tenant) {
    // One succeeded payment: the routes that need another status answer the control with 409.
    const payment = await paymentsClient(t, tenant.apiKey).paidPayment({
      amount: 1000,
      seller: 'shop',
      customer: customerActor('test:payer'),
    });
    return { paymentId: payment.id, account: 'seller:shop:payable' };
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
    change('confirm', { paymentMethod: 'pm_card_visa' }),
    change('capture', {}),
    change('cancel', {}),
    change('simulate', { outcome: 'succeeded' }),
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
      method: 'GET',
      url: (r) => `/v1/payments/${r.paymentId}/events`,
      scope: 'payments:read',
      ...own,
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
