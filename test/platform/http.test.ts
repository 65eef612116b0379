import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Type } from 'typebox';
import { buildTestApp, call, type TestApp } from '../helper.ts';

describe('HTTP platform', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      config: { bodyLimitBytes: 2048 },
      extend(app) {
        // A stand-in route to exercise body parsing, validation and limits in isolation.
        app.post(
          '/test/echo',
          {
            schema: {
              operationId: 'testEcho',
              summary: 'Echo',
              body: Type.Object(
                { name: Type.String({ minLength: 1 }), count: Type.Integer({ minimum: 0 }) },
                { additionalProperties: false },
              ),
            },
          },
          async (request) => request.body,
        );
        app.get('/test/boom', { schema: { operationId: 'testBoom', summary: 'Boom' } }, async () => {
          throw new Error('select * from secret_table where password = 1');
        });
      },
    });
  });
  after(() => t.close());

  test('GET /healthz answers 200 and echoes a generated request id', async () => {
    const res = await call(t.app, { method: 'GET', url: '/healthz' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ok' });
    assert.match(String(res.headers['x-request-id']), /^req_[0-9a-z]{26}$/);
  });

  test('a caller X-Request-Id is echoed, an unsafe one replaced', async () => {
    const kept = await call(t.app, {
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'abc-123' },
    });
    assert.equal(kept.headers['x-request-id'], 'abc-123');
    const replaced = await call(t.app, {
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    assert.match(String(replaced.headers['x-request-id']), /^req_/);
  });

  test('GET /readyz reports the database ready', async () => {
    const res = await call(t.app, { method: 'GET', url: '/readyz' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().status, 'ready');
  });

  test('unknown route -> 404 not_found with the request id', async () => {
    const res = await call(t.app, {
      method: 'GET',
      url: '/v1/does-not-exist',
      headers: { 'x-request-id': 'r-404' },
    });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().error, 'not_found');
    assert.equal(res.json().requestId, 'r-404');
    assert.equal(res.headers['x-request-id'], 'r-404');
  });

  test('known path, wrong method -> 405 with Allow', async () => {
    const res = await call(t.app, { method: 'DELETE', url: '/healthz' });
    assert.equal(res.statusCode, 405);
    assert.equal(res.json().error, 'method_not_allowed');
    assert.equal(res.headers.allow, 'GET');
  });

  test('malformed JSON -> 400 invalid_request', async () => {
    const res = await call(t.app, {
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error, 'invalid_request');
    assert.equal(res.json().requestId, res.headers['x-request-id']);
  });

  test('schema violations -> 400 with one detail per field problem', async () => {
    const res = await call(t.app, {
      method: 'POST',
      url: '/test/echo',
      payload: { name: '', count: -1, extra: true },
    });
    assert.equal(res.statusCode, 400);
    const body = res.json<{ error: string; details: { field: string; code?: string }[] }>();
    assert.equal(body.error, 'invalid_request');
    const fields = body.details.map((d) => d.field).sort();
    assert.deepEqual(fields, ['/body/count', '/body/extra', '/body/name']);
    assert.equal(body.details.find((d) => d.field === '/body/extra')?.code, 'unknown_field');
  });

  test('body over the limit -> 413 payload_too_large', async () => {
    const res = await call(t.app, {
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(4096), count: 1 }),
    });
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().error, 'payload_too_large');
    assert.equal(res.json().requestId, res.headers['x-request-id']);
  });

  test('wrong content type -> 415 unsupported_media_type', async () => {
    const res = await call(t.app, {
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'text/plain' },
      payload: 'name=x',
    });
    assert.equal(res.statusCode, 415);
    assert.equal(res.json().error, 'unsupported_media_type');
    assert.equal(res.json().requestId, res.headers['x-request-id']);
  });

  test('an unexpected failure -> 500 internal_error without the cause leaking', async () => {
    const res = await call(t.app, { method: 'GET', url: '/test/boom' });
    assert.equal(res.statusCode, 500);
    assert.equal(res.json().error, 'internal_error');
    assert.doesNotMatch(res.body, /secret_table|password|at .*\.ts/);
  });
});
