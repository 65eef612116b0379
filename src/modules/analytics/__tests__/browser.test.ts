import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { bearer, connectSession } from '../../../../test/factories.ts';
import { call, type Response } from '../../../../test/helper.ts';
import { appSuite } from '../../../../test/support/suite.ts';
import { LIMITS } from '../schema.ts';
import { createProductKey, keyOf, query } from './support.ts';

const SHOP = 'https://shop.example';
const ELSEWHERE = 'https://elsewhere.example';
const EVENTS = '/v1/analytics/events';

function expectError(res: Response, status: number, code: string): string {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json<{ error: string; message: string }>();
  assert.equal(body.error, code, res.body);
  return body.message;
}

/**
 * What a storefront page does with its publishable product key: events from the browser, under the
 * storefront's allowed origins (issue 28 item 4) and as `navigator.sendBeacon` sends them (item 17).
 */
describe('analytics from a browser: the storefront origin rule and text/plain bodies', () => {
  const s = appSuite({ config: { authFailureLimit: 1_000_000 } });
  let productKey: string;

  const count = async (event: string) =>
    (await query(s.t, s.tenant.apiKey, { event, dateRange: { preset: 'today' } })).totals.events;
  const send = (headers: Record<string, string>, payload: string | object, url = EVENTS) =>
    call(s.t.app, {
      method: 'POST',
      url,
      headers,
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
  const page = (origin: string | undefined, contentType = 'application/json') => ({
    'x-svc-product-key': productKey,
    'content-type': contentType,
    ...(origin === undefined ? {} : { origin }),
  });

  before(async () => {
    // An unrestricted product key: only the storefront's list restricts it.
    productKey = await createProductKey(s.t, s.tenant, { name: 'web shop' });
    const url = `/api/console/tenants/${s.tenant.tenantId}/storefront`;
    const current = await call(s.t.app, { method: 'GET', url, headers: bearer(s.tenant.ownerToken) });
    const saved = await call(s.t.app, {
      method: 'PUT',
      url,
      headers: bearer(s.tenant.ownerToken),
      payload: { brand: current.json<{ brand: object }>().brand, allowedOrigins: [SHOP] },
    });
    assert.equal(saved.statusCode, 200, saved.body);
  });

  test("the storefront's allowedOrigins: ingestion refuses another origin as /api/public/* does (was 202)", async () => {
    const event = { event: 'Origin Probe', anonymousId: 'b-1' };
    const refused = await send(page(ELSEWHERE), event);
    const message = expectError(refused, 403, 'forbidden');
    assert.match(message, /allowedOrigins/);
    assert.equal(refused.headers['access-control-allow-origin'], undefined);
    const publicRoute = await call(s.t.app, {
      method: 'GET',
      url: '/api/public/brand',
      headers: page(ELSEWHERE),
    });
    assert.equal(expectError(publicRoute, 403, 'forbidden'), message, 'one rule, one message');
    assert.equal(publicRoute.headers['access-control-allow-origin'], undefined);

    const allowed = await send(page(SHOP), event);
    assert.equal(allowed.statusCode, 202, allowed.body);
    assert.equal(allowed.headers['access-control-allow-origin'], SHOP);
    // No Origin: a server or a phone app, not a browser; the rule is not for it.
    assert.equal((await send(page(undefined), event)).statusCode, 202);
    assert.equal(await count('Origin Probe'), 2, 'the refused event was not recorded');
  });

  test('a session token or an API key is not a storefront page: the storefront rule is not theirs', async () => {
    const session = (await connectSession(s.t, s.tenant.apiKey, { modules: ['analytics'] })).token;
    for (const credential of [bearer(session), keyOf(s.tenant.apiKey)]) {
      const res = await send(
        { ...credential, origin: ELSEWHERE, 'content-type': 'application/json' },
        {
          event: 'Signed In Probe',
          anonymousId: 'b-2',
        },
      );
      assert.equal(res.statusCode, 202, res.body);
    }
  });

  test('preflight: ingestion answers it as the public routes do (no key, so no tenant, is known)', async () => {
    const preflight = (url: string, method: string) =>
      call(s.t.app, {
        method: 'OPTIONS',
        url,
        headers: {
          origin: ELSEWHERE,
          'access-control-request-method': method,
          'access-control-request-headers': 'x-svc-product-key, content-type',
        },
      });
    const ingestion = await preflight(EVENTS, 'POST');
    const brand = await preflight('/api/public/brand', 'GET');
    for (const res of [ingestion, brand]) {
      assert.equal(res.statusCode, 204, res.body);
      assert.equal(res.headers['access-control-allow-origin'], ELSEWHERE);
      assert.match(String(res.headers['access-control-allow-headers']), /X-SVC-Product-Key/);
      assert.match(String(res.headers['access-control-allow-headers']), /Content-Type/);
      assert.equal(res.headers.vary, 'Origin');
    }
  });

  test('text/plain, with or without charset=UTF-8, is read as JSON on ingestion (was 415)', async () => {
    for (const contentType of ['text/plain', 'text/plain;charset=UTF-8', 'text/plain; charset=utf-8']) {
      const res = await send(page(SHOP, contentType), {
        batch: [{ event: 'Beacon', anonymousId: 'b-3', properties: { path: '/shows/1' } }],
      });
      assert.equal(res.statusCode, 202, `${contentType}: ${res.body}`);
      assert.equal(res.json<{ accepted: number }>().accepted, 1);
      assert.equal(res.headers['access-control-allow-origin'], SHOP);
    }
    assert.equal(await count('Beacon'), 3);
    // The storefront's origin rule holds for a beacon as for any request.
    expectError(
      await send(page(ELSEWHERE, 'text/plain'), { event: 'Beacon', anonymousId: 'b-3' }),
      403,
      'forbidden',
    );
  });

  test('text/plain gets the same checks and the same size limit as JSON', async () => {
    const plain = page(SHOP, 'text/plain;charset=UTF-8');
    expectError(await send(plain, '{"event":'), 400, 'invalid_request');
    expectError(
      await send(plain, '{"__proto__":{"x":1},"event":"P","anonymousId":"a"}'),
      400,
      'invalid_request',
    );
    expectError(await send(plain, '{"event":"Nul\\u0000","anonymousId":"a"}'), 400, 'invalid_request');
    expectError(await send(plain, { event: 'No Identity' }), 400, 'invalid_request');
    expectError(await send(plain, { event: 'x', anonymousId: 'a', unknown: 1 }), 400, 'invalid_request');
    const large = JSON.stringify({
      event: 'Large',
      anonymousId: 'a',
      properties: { s: 'x'.repeat(LIMITS.requestBytes) },
    });
    for (const contentType of ['text/plain', 'application/json']) {
      expectError(await send(page(SHOP, contentType), large), 413, 'payload_too_large');
    }
    const latin = await send(page(SHOP, 'text/plain; charset=ISO-8859-1'), { event: 'L', anonymousId: 'a' });
    assert.match(expectError(latin, 415, 'unsupported_media_type'), /UTF-8/);
  });

  test('every other route still answers 415 for text/plain', async () => {
    const plain = { ...keyOf(s.tenant.apiKey), 'content-type': 'text/plain' };
    const body = { dateRange: { preset: 'today' } };
    expectError(await send(plain, body, '/v1/analytics/query'), 415, 'unsupported_media_type');
    expectError(
      await send(plain, { steps: [{ event: 'a' }, { event: 'b' }], ...body }, '/v1/analytics/funnel'),
      415,
      'unsupported_media_type',
    );
    expectError(await send(plain, { name: 'room' }, '/v1/rooms'), 415, 'unsupported_media_type');
    expectError(
      await send(plain, { arguments: body }, '/v1/actions/analytics_query'),
      415,
      'unsupported_media_type',
    );
  });
});
