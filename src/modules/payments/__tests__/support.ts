import assert from 'node:assert/strict';
import { bearer, createTestTenant, type TestTenant } from '../../../../test/factories.ts';
import { buildTestApp, call, type Response, type TestApp } from '../../../../test/helper.ts';
import type { Actor } from '../../../core/tenancy/actors.ts';
import type { PaymentView, RefundView } from '../payment-row.ts';

export interface ErrorBody {
  error: string;
  message: string;
  details?: { field: string; code?: string; message: string }[];
}

/** An app, and a tenant on it with its API key (`key`). */
export async function tenantApp(
  options?: Parameters<typeof buildTestApp>[0],
): Promise<{ t: TestApp; tenant: TestTenant; key: string }> {
  const t = await buildTestApp(options);
  const tenant = await createTestTenant(t);
  return { t, tenant, key: tenant.apiKey };
}

/** Sets the tenant's payments configuration through the console, as its owner. */
export async function configurePayments(
  t: TestApp,
  tenant: TestTenant,
  config: Record<string, unknown>,
): Promise<void> {
  const res = await call(t.app, {
    method: 'PUT',
    url: `/api/console/tenants/${tenant.tenantId}/modules/payments`,
    headers: bearer(tenant.ownerToken),
    payload: { enabled: true, config },
  });
  assert.equal(res.statusCode, 200, res.body);
}

/** The tenant pays through Stripe: its keys stored (answered), then its provider switched to stripe. */
export async function payThroughStripe(
  t: TestApp,
  tenant: TestTenant,
  keys: { secretKey: string; webhookSecret: string },
): Promise<Response> {
  const stored = await call(t.app, {
    method: 'PUT',
    url: '/v1/payments/providers/stripe',
    headers: bearer(tenant.apiKey),
    payload: keys,
  });
  assert.equal(stored.statusCode, 200, stored.body);
  await configurePayments(t, tenant, { provider: 'stripe' });
  return stored;
}

/** The customer `<provider>:<name>` as the API names it: an end user verified by that provider. */
export function customerActor(id: string): Actor {
  return { type: 'end_user', id, identityProvider: id.split(':')[0] ?? 'test' };
}

export async function post(
  t: TestApp,
  apiKey: string,
  url: string,
  payload: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Response> {
  return call(t.app, { method: 'POST', url, headers: { ...bearer(apiKey), ...headers }, payload });
}

export async function get(t: TestApp, apiKey: string, url: string): Promise<Response> {
  return call(t.app, { method: 'GET', url, headers: bearer(apiKey) });
}

/** Every row of a list, page after page (`limit` 100). */
export async function allPages<T>(t: TestApp, apiKey: string, url: string): Promise<T[]> {
  const rows: T[] = [];
  let cursor: string | null = null;
  do {
    const separator = url.includes('?') ? '&' : '?';
    const next = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const res = await get(t, apiKey, `${url}${separator}limit=100${next}`);
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    const page = res.json<{ data: T[]; nextCursor: string | null }>();
    rows.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return rows;
}

export async function createPayment(
  t: TestApp,
  apiKey: string,
  body: Record<string, unknown> = {},
): Promise<PaymentView> {
  const res = await post(t, apiKey, '/v1/payments', { amount: 10_000, currency: 'EUR', ...body });
  if (res.statusCode !== 201) throw new Error(`create payment: ${res.statusCode} ${res.body}`);
  return res.json<PaymentView>();
}

export async function act(
  t: TestApp,
  apiKey: string,
  paymentId: string,
  action: 'confirm' | 'capture' | 'cancel' | 'simulate',
  body: Record<string, unknown> = {},
): Promise<Response> {
  return post(t, apiKey, `/v1/payments/${paymentId}/${action}`, body);
}

/** A payment paid with pm_card_visa: succeeded (automatic) or requires_capture (manual). */
export async function paidPayment(
  t: TestApp,
  apiKey: string,
  body: Record<string, unknown> = {},
): Promise<PaymentView> {
  const created = await createPayment(t, apiKey, body);
  const res = await act(t, apiKey, created.id, 'confirm', { paymentMethod: 'pm_card_visa' });
  if (res.statusCode !== 200) throw new Error(`confirm: ${res.statusCode} ${res.body}`);
  return res.json<PaymentView>();
}

export async function refund(
  t: TestApp,
  apiKey: string,
  paymentId: string,
  body: Record<string, unknown> = {},
): Promise<Response> {
  return post(t, apiKey, `/v1/payments/${paymentId}/refunds`, body);
}

export type { PaymentView, RefundView };
