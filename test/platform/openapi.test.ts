import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkOpenApi } from '../../scripts/validate-openapi.mjs';
import { loadConfig } from '../../src/config.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';

interface Operation {
  operationId?: string;
  summary?: string;
  responses?: Record<string, unknown>;
}

interface OpenApiDocument {
  openapi: string;
  servers?: { url: string }[];
  components?: {
    securitySchemes?: Record<string, { type: string; scheme?: string; in?: string; name?: string }>;
  };
  paths: Record<string, Record<string, Operation>>;
}

const PUBLIC_URL = 'https://api.example.test/';

describe('OpenAPI contract and API reference', () => {
  let t: TestApp;
  let doc: OpenApiDocument;
  before(async () => {
    t = await buildTestApp({
      config: { publicUrl: loadConfig({ SVC_PUBLIC_URL: PUBLIC_URL }).publicUrl },
    });
    const res = await call(t.app, { method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    doc = res.json<OpenApiDocument>();
  });
  after(() => t.close());

  test('GET /openapi.json is valid OpenAPI 3.1 and follows the house rules', async () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(await checkOpenApi(doc), []);
  });

  test('servers come from SVC_PUBLIC_URL', () => {
    assert.deepEqual(doc.servers, [{ url: 'https://api.example.test' }]);
  });

  test('security schemes: API key (Bearer and X-API-Key), hosted JWT, session token', () => {
    const schemes = doc.components?.securitySchemes ?? {};
    assert.deepEqual(Object.keys(schemes).sort(), ['apiKey', 'apiKeyHeader', 'hostedJwt', 'sessionToken']);
    assert.equal(schemes.apiKey?.type, 'http');
    assert.equal(schemes.apiKey?.scheme, 'bearer');
    assert.deepEqual(
      { type: schemes.apiKeyHeader?.type, in: schemes.apiKeyHeader?.in, name: schemes.apiKeyHeader?.name },
      { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    );
    assert.equal(schemes.hostedJwt?.scheme, 'bearer');
    assert.equal(schemes.sessionToken?.scheme, 'bearer');
  });

  test('every operation has an operationId, a summary and documented error responses', () => {
    const operations = Object.entries(doc.paths).flatMap(([route, item]) =>
      Object.entries(item).map(([method, op]) => ({ where: `${method.toUpperCase()} ${route}`, op })),
    );
    assert.ok(
      operations.some((o) => o.where === 'GET /healthz'),
      'the health route is documented',
    );
    for (const { where, op } of operations) {
      assert.equal(typeof op.operationId, 'string', `${where} operationId`);
      assert.equal(typeof op.summary, 'string', `${where} summary`);
      const statuses = Object.keys(op.responses ?? {});
      assert.ok(
        statuses.some((s) => s.startsWith('2')),
        `${where} documents a success response`,
      );
      assert.ok(statuses.includes('404') && statuses.includes('500'), `${where} documents 404 and 500`);
    }
  });

  test('the realtime WebSocket is published: the upgrade, its token parameter and its refusals', () => {
    const op = doc.paths['/v1/realtime']?.get as
      | (Operation & {
          description?: string;
          security?: Record<string, string[]>[];
          parameters?: { in: string; name: string; required?: boolean }[];
        })
      | undefined;
    assert.ok(op !== undefined, 'GET /v1/realtime is in the document');
    assert.equal(op.operationId, 'connectRealtime');
    assert.match(op.description ?? '', /docs\/realtime\.md/);
    assert.deepEqual(op.security, [{ sessionToken: [] }]);
    assert.deepEqual(
      op.parameters?.map((p) => [p.in, p.name, p.required]),
      [['query', 'token', false]],
    );
    const statuses = Object.keys(op.responses ?? {});
    for (const status of ['101', '200', '400', '401', '429', '500']) {
      assert.ok(statuses.includes(status), `documents ${status}`);
    }
  });

  test('the checker catches what the house rules forbid', async () => {
    const broken = structuredClone(doc);
    const health = broken.paths['/healthz']?.get;
    assert.ok(health !== undefined);
    delete health.summary;
    health.responses = { '200': { description: 'ok' } };
    const readiness = broken.paths['/readyz']?.get;
    assert.ok(readiness !== undefined);
    readiness.operationId = 'getHealth';
    const problems = await checkOpenApi(broken);
    assert.ok(problems.includes('GET /healthz: missing summary'), problems.join('\n'));
    assert.ok(problems.some((p) => p.startsWith('GET /healthz: no 4xx response using')));
    assert.ok(problems.some((p) => p.startsWith('GET /readyz: operationId getHealth is also used')));
    assert.notDeepEqual(await checkOpenApi({ openapi: '3.1.0', paths: {} }), [], 'info is required');
  });

  test('GET /docs serves the API reference with every asset local (no CDN)', async () => {
    const page = await call(t.app, { method: 'GET', url: '/docs' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'\s*;/, 'scripts only from this origin');

    const assets = [...page.body.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
    assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')));
    for (const asset of assets) {
      assert.match(asset, /^\/docs\//, `${asset} is served by the service itself`);
      const res = await call(t.app, { method: 'GET', url: asset });
      assert.equal(res.statusCode, 200, asset);
      assert.ok(res.rawPayload.length > 0, `${asset} is not empty`);
    }

    const init = await call(t.app, { method: 'GET', url: '/docs/static/swagger-initializer.js' });
    assert.equal(init.statusCode, 200);
    const code = init.body.replace(/^\s*\/\/.*$/gm, '');
    assert.doesNotMatch(code, /https?:\/\//, 'the initializer loads nothing from another host');
    assert.match(code, /"validatorUrl":null/, 'no call to the public validator badge');

    const spec = await call(t.app, { method: 'GET', url: '/docs/json' });
    assert.equal(spec.statusCode, 200);
    assert.deepEqual(spec.json(), doc, 'the reference renders the same document');
  });
});
