import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer, hostedToken } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { expectError } from '../../../../test/identity/support.ts';
import { appSuite } from '../../../../test/support/suite.ts';

interface Counts {
  since: string;
  until: string;
  total: number;
  types: { type: string; count: number }[];
  otherTypes: number;
}

describe('console: event counts (the overview) and the scope list', () => {
  const s = appSuite({ tenants: 2 });
  const publish = async (apiKey: string, type: string) => {
    const res = await call(s.t.app, {
      method: 'POST',
      url: '/v1/events',
      headers: { 'x-api-key': apiKey },
      payload: { type, data: {} },
    });
    assert.equal(res.statusCode, 201, res.body);
  };
  const counts = (tenantId: string, token: string, query: string) =>
    call(s.t.app, {
      method: 'GET',
      url: `/api/console/tenants/${tenantId}/event-counts?${query}`,
      headers: bearer(token),
    });

  test("counts the range's events by type, most frequent first, and only the tenant's own", async () => {
    const [a, b] = s.tenants;
    assert.ok(a !== undefined && b !== undefined);
    const since = new Date(Date.now() - 60_000).toISOString();
    for (const type of ['app.order.paid', 'app.order.paid', 'app.cart.viewed']) await publish(a.apiKey, type);
    await publish(b.apiKey, 'app.other.tenant');

    const res = await counts(a.tenantId, a.ownerToken, `since=${encodeURIComponent(since)}`);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json<Counts>();
    assert.equal(body.since, since);
    assert.ok(Date.parse(body.until) >= Date.parse(since));
    assert.deepEqual(body.types, [
      { type: 'app.order.paid', count: 2 },
      { type: 'app.cart.viewed', count: 1 },
    ]);
    assert.equal(body.total, 3);
    assert.equal(body.otherTypes, 0);

    // A range that ends before the events were written counts nothing.
    const before = await counts(
      a.tenantId,
      a.ownerToken,
      `since=${encodeURIComponent('2020-01-01T00:00:00Z')}&until=${encodeURIComponent(since)}`,
    );
    assert.deepEqual(before.json<Counts>().types, []);
    assert.equal(before.json<Counts>().total, 0);
  });

  test('refusals: no since, until before since, a tenant the caller is no member of', async () => {
    const [a, b] = s.tenants;
    assert.ok(a !== undefined && b !== undefined);
    expectError(await counts(a.tenantId, a.ownerToken, ''), 400, 'invalid_request');
    const reversed = expectError(
      await counts(a.tenantId, a.ownerToken, 'since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z'),
      400,
      'invalid_request',
    );
    assert.equal(reversed.details?.[0]?.field, '/querystring/until');
    expectError(await counts(b.tenantId, a.ownerToken, 'since=2026-01-01T00:00:00Z'), 404, 'not_found');
    const noCredential = await call(s.t.app, {
      method: 'GET',
      url: `/api/console/tenants/${a.tenantId}/event-counts?since=2026-01-01T00:00:00Z`,
    });
    assert.equal(noCredential.statusCode, 401);
  });

  test('the scope list holds every scope a key may be created with, and only those', async () => {
    const token = await hostedToken(s.t);
    const res = await call(s.t.app, {
      method: 'GET',
      url: '/api/console/scopes?limit=100',
      headers: bearer(token),
    });
    assert.equal(res.statusCode, 200, res.body);
    const rows = res.json<{ data: { scope: string; module: string | null; description: string }[] }>().data;
    const listed = rows.map((r) => r.scope).sort();
    assert.deepEqual(listed, [...s.t.app.services.registry.knownScopes].sort());
    assert.deepEqual(rows.find((r) => r.scope === 'rooms:write')?.module, 'rooms');
    assert.equal(rows.find((r) => r.scope === 'events:read')?.module, null);
    assert.ok(rows.every((r) => r.description.length > 0));
    const anonymous = await call(s.t.app, { method: 'GET', url: '/api/console/scopes' });
    assert.equal(anonymous.statusCode, 401);
  });
});
