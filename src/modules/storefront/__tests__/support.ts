import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { bearer, hostedToken, type TestTenant } from '../../../../test/factories.ts';
import { call, type Response, type TestApp } from '../../../../test/helper.ts';
import { keyOf, postWithKey } from '../../../../test/support/api-key.ts';

export { keyOf };
export const productHeaders = (key: string, extra: Record<string, string> = {}) => ({
  'x-svc-product-key': key,
  ...extra,
});

/** Asserts the API's error body and returns it. */
export function expectError(res: Response, status: number, code: string) {
  assert.equal(res.statusCode, status, `expected ${status} ${code}, got ${res.statusCode} ${res.body}`);
  const body = res.json<{ error: string; message: string; details?: { field: string }[] }>();
  assert.equal(body.error, code, res.body);
  assert.equal(typeof body.message, 'string');
  return body;
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export async function consoleCall(
  t: TestApp,
  tenant: TestTenant,
  method: Method,
  url: string,
  payload?: Record<string, unknown>,
  token = tenant.ownerToken,
): Promise<Response> {
  return call(t.app, { method, url, headers: bearer(token), ...(payload === undefined ? {} : { payload }) });
}

export async function makeProductKey(
  t: TestApp,
  tenant: TestTenant,
  body: Record<string, unknown> = {},
): Promise<{ id: string; key: string }> {
  const res = await consoleCall(t, tenant, 'POST', `/api/console/tenants/${tenant.tenantId}/product-keys`, {
    name: 'storefront',
    ...body,
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

export async function makeOperator(
  t: TestApp,
  tenant: TestTenant,
  body: Record<string, unknown> = {},
): Promise<{ id: string; slug: string; name: string }> {
  const slug = `op-${randomUUID().slice(0, 8)}`;
  const res = await consoleCall(t, tenant, 'POST', `/api/console/tenants/${tenant.tenantId}/operators`, {
    name: 'Vintage Vinyl',
    slug,
    ...body,
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

export async function makeRoom(t: TestApp, apiKey: string): Promise<string> {
  const res = await postWithKey(t, apiKey, '/v1/rooms', {});
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ id: string }>().id;
}

/** An auction through the auctions API; `start` makes it live. */
export async function makeAuction(
  t: TestApp,
  apiKey: string,
  roomId: string,
  body: Record<string, unknown> = {},
  state: 'draft' | 'live' | 'scheduled' = 'draft',
): Promise<string> {
  // Through the auctions API, as any integration would (a module's tests use no other module's helpers),
  // with the auction's default increments (none given here).
  const created = await postWithKey(t, apiKey, '/v1/auctions', {
    roomId,
    title: 'Signed vinyl',
    currency: 'EUR',
    startingPrice: 1000,
    durationSeconds: 600,
    ...body,
  });
  assert.equal(created.statusCode, 201, created.body);
  const { id } = created.json<{ id: string }>();
  if (state === 'live') {
    const started = await postWithKey(t, apiKey, `/v1/auctions/${id}/start`);
    assert.equal(started.statusCode, 200, started.body);
  }
  if (state === 'scheduled') {
    const scheduled = await postWithKey(t, apiKey, `/v1/auctions/${id}/schedule`, {
      startsAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    assert.equal(scheduled.statusCode, 200, scheduled.body);
  }
  return id;
}

export async function bid(t: TestApp, apiKey: string, auctionId: string, amount: number, maxAmount?: number) {
  const res = await postWithKey(t, apiKey, `/v1/auctions/${auctionId}/bids`, {
    amount,
    ...(maxAmount === undefined ? {} : { maxAmount }),
    actor: { type: 'end_user', id: `test:bidder-${randomUUID().slice(0, 6)}`, identityProvider: 'test' },
  });
  assert.ok(res.statusCode === 201 || res.statusCode === 200, res.body);
  return res;
}

/** A member of the tenant with `role` (invited, then signed in), and their console token. */
export async function addMember(t: TestApp, tenant: TestTenant, role: string): Promise<string> {
  const sub = `member-${randomUUID()}`;
  const email = `${sub}@example.test`;
  const token = await hostedToken(t, sub, { email });
  assert.equal(
    (await call(t.app, { method: 'GET', url: '/api/auth/user', headers: bearer(token) })).statusCode,
    200,
  );
  const invite = await consoleCall(t, tenant, 'POST', `/api/console/tenants/${tenant.tenantId}/members`, {
    email,
    role,
  });
  assert.equal(invite.statusCode, 201, invite.body);
  assert.equal(
    (await call(t.app, { method: 'GET', url: '/api/auth/user', headers: bearer(token) })).statusCode,
    200,
  );
  return token;
}
