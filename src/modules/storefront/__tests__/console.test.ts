import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer, createTestTenant } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { appSuite } from '../../../../test/support/suite.ts';
import { addMember, consoleCall, expectError, type Method, makeOperator } from './support.ts';

interface Operator {
  id: string;
  name: string;
  slug: string;
  brand: Record<string, unknown>;
  app: Record<string, unknown>;
}

describe('console: operators and storefront configuration', () => {
  const s = appSuite();
  /** A console call as the tenant's owner. */
  const asOwner = (method: Method, url: string, payload?: Record<string, unknown>) =>
    consoleCall(s.t, s.tenant, method, url, payload);

  const base = () => `/api/console/tenants/${s.tenant.tenantId}`;

  test('operators: create, list newest first, get, update, delete', async () => {
    const first = await makeOperator(s.t, s.tenant, {
      app: { androidPackage: 'com.shop.one', iosBundleId: 'com.shop.one' },
    });
    const second = await makeOperator(s.t, s.tenant);
    assert.match(first.id, /^op_/);
    const list = await asOwner('GET', `${base()}/operators?limit=1`);
    const page = list.json<{ data: Operator[]; nextCursor: string | null }>();
    assert.deepEqual(
      page.data.map((o) => o.id),
      [second.id],
    );
    const next = await asOwner('GET', `${base()}/operators?limit=1&cursor=${page.nextCursor}`);
    assert.deepEqual(
      next.json<{ data: Operator[] }>().data.map((o) => o.id),
      [first.id],
    );
    const got = (await asOwner('GET', `${base()}/operators/${first.id}`)).json<Operator>();
    assert.deepEqual(got.app, { androidPackage: 'com.shop.one', iosBundleId: 'com.shop.one' });
    const patched = await asOwner('PATCH', `${base()}/operators/${first.id}`, {
      name: 'Renamed',
    });
    assert.equal(patched.json<Operator>().name, 'Renamed');
    const taken = await asOwner('PATCH', `${base()}/operators/${first.id}`, {
      slug: second.slug,
    });
    expectError(taken, 409, 'conflict');
    expectError(
      await asOwner('POST', `${base()}/operators`, { name: 'Dup', slug: second.slug }),
      409,
      'conflict',
    );
    assert.equal((await asOwner('DELETE', `${base()}/operators/${first.id}`)).statusCode, 200);
    expectError(await asOwner('GET', `${base()}/operators/${first.id}`), 404, 'not_found');
    expectError(await asOwner('GET', `/api/console/operators/${first.id}/storefront`), 404, 'not_found');
  });

  test('bad input is refused with details naming each field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'x', slug: 'Not A Slug' }, '/body/slug'],
      [{ name: 'x', slug: 'ok', brand: { colors: { primary: 'red' } } }, '/body/brand/colors/primary'],
      [{ name: 'x', slug: 'ok', brand: { logoUrl: 'ftp://x' } }, '/body/brand/logoUrl'],
      [{ name: 'x', slug: 'ok', app: { androidPackage: 'nodots' } }, '/body/app/androidPackage'],
      [{ name: 'x', slug: 'ok', extra: 1 }, '/body/extra'],
    ];
    for (const [payload, field] of cases) {
      const body = expectError(await asOwner('POST', `${base()}/operators`, payload), 400, 'invalid_request');
      assert.ok(
        (body.details ?? []).some((d) => d.field === field),
        `${field} in ${JSON.stringify(body.details)}`,
      );
    }
    const storefront = await asOwner('PUT', `${base()}/storefront`, {
      defaultCurrency: 'euro',
      allowedOrigins: ['not an origin'],
    });
    const body = expectError(storefront, 400, 'invalid_request');
    assert.ok((body.details ?? []).length >= 1, storefront.body);
  });

  test("storefront: defaults, replace, and an operator's overrides resolved field by field", async () => {
    const initial = (await asOwner('GET', `${base()}/storefront`)).json<Record<string, unknown>>();
    assert.deepEqual(initial.brand, { name: 'Test tenant' });
    assert.equal(initial.updatedAt, null);
    const put = await asOwner('PUT', `${base()}/storefront`, {
      brand: { name: 'House', slogan: 'Bid', colors: { primary: '#111111', text: '#222222' } },
      allowedOrigins: ['https://Shop.example'],
      defaultLocale: 'de',
      defaultCurrency: 'CHF',
    });
    assert.equal(put.statusCode, 200, put.body);
    const saved = put.json<Record<string, unknown>>();
    assert.deepEqual(saved.allowedOrigins, ['https://shop.example']);
    assert.equal(saved.defaultCurrency, 'CHF');
    const operator = await makeOperator(s.t, s.tenant);
    const url = `/api/console/operators/${operator.id}/storefront`;
    const set = await asOwner('PUT', url, {
      brand: { slogan: 'Vinyl only', colors: { primary: '#000000' } },
    });
    assert.equal(set.statusCode, 200, set.body);
    assert.deepEqual(set.json<{ resolvedBrand: unknown }>().resolvedBrand, {
      name: 'House',
      slogan: 'Vinyl only',
      colors: { primary: '#000000', text: '#222222' },
    });
  });

  test('roles: viewers read, admins write; non-members get 404 on operator-addressed routes', async () => {
    const operator = await makeOperator(s.t, s.tenant);
    const viewer = await addMember(s.t, s.tenant, 'viewer');
    const as = (
      token: string,
      method: 'GET' | 'PUT' | 'POST',
      url: string,
      payload?: Record<string, unknown>,
    ) =>
      call(s.t.app, { method, url, headers: bearer(token), ...(payload === undefined ? {} : { payload }) });
    assert.equal((await as(viewer, 'GET', `${base()}/storefront`)).statusCode, 200);
    assert.equal(
      (await as(viewer, 'GET', `/api/console/operators/${operator.id}/storefront`)).statusCode,
      200,
    );
    expectError(await as(viewer, 'PUT', `${base()}/storefront`, {}), 403, 'forbidden');
    expectError(await as(viewer, 'POST', `${base()}/operators`, { name: 'x', slug: 'x' }), 403, 'forbidden');
    expectError(
      await as(viewer, 'PUT', `/api/console/operators/${operator.id}/storefront`, { brand: {} }),
      403,
      'forbidden',
    );
    const stranger = await createTestTenant(s.t);
    for (const url of [
      `/api/console/operators/${operator.id}/storefront`,
      `/api/console/operators/${operator.id}/mobile-builds`,
    ]) {
      const res = await as(stranger.ownerToken, 'GET', url);
      const body = expectError(res, 404, 'not_found');
      assert.match(body.message, /operator/);
    }
    expectError(
      await as(stranger.ownerToken, 'GET', '/api/console/operators/not-an-id/storefront'),
      400,
      'invalid_request',
    );
  });
});
