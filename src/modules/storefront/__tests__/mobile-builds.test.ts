import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import { bearer, createTestTenant, type TestTenant } from '../../../../test/factories.ts';
import { buildTestApp, call, type TestApp } from '../../../../test/helper.ts';
import { addMember, consoleCall, expectError, keyOf, makeOperator } from './support.ts';

interface Build {
  id: string;
  operatorId: string;
  platform: string;
  submitToStores: boolean;
  requestedBy: string | null;
  status: string;
  error: string | null;
  buildUrl: string | null;
}

/** A local stand-in for GitHub's REST API: records each request, answers what the test set. */
class FakeGitHub {
  readonly requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
  answer: { status: number; headers?: Record<string, string>; body?: unknown; hang?: boolean } = {
    status: 204,
  };
  private readonly server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      this.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (this.answer.hang === true) {
        req.socket.destroy();
        return;
      }
      res.writeHead(this.answer.status, { 'content-type': 'application/json', ...this.answer.headers });
      res.end(this.answer.body === undefined ? '' : JSON.stringify(this.answer.body));
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const buildUrl = (operatorId: string) => `/api/console/operators/${operatorId}/mobile-build`;

describe('mobile build dispatch: development mode (no dispatch token)', () => {
  let t: TestApp;
  let tenant: TestTenant;

  before(async () => {
    t = await buildTestApp();
    tenant = await createTestTenant(t);
  });
  after(() => t.close());

  test('answers {queued: false, devMode: true, build}, records it as dev_mode, sends nothing', async () => {
    const operator = await makeOperator(t, tenant);
    const res = await consoleCall(t, tenant, 'POST', buildUrl(operator.id), { platform: 'android' });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json<{ queued: boolean; devMode: boolean; build: Build }>();
    assert.deepEqual(Object.keys(body), ['queued', 'devMode', 'build']);
    assert.equal(body.queued, false);
    assert.equal(body.devMode, true);
    assert.deepEqual(Object.keys(body.build).sort(), [
      'buildUrl',
      'completedAt',
      'createdAt',
      'error',
      'id',
      'operatorId',
      'platform',
      'requestedBy',
      'status',
      'submitToStores',
      'updatedAt',
    ]);
    assert.match(body.build.id, /^mbd_/);
    assert.equal(body.build.status, 'dev_mode');
    assert.equal(body.build.submitToStores, false, 'submitToStores defaults to false');
    assert.equal(body.build.requestedBy, tenant.ownerUserId);
    const list = await consoleCall(t, tenant, 'GET', `/api/console/operators/${operator.id}/mobile-builds`);
    assert.deepEqual(
      list.json<{ data: Build[] }>().data.map((b) => [b.id, b.status]),
      [[body.build.id, 'dev_mode']],
    );
  });

  test('platform other than android or ios, or unknown fields: 400 with details', async () => {
    const operator = await makeOperator(t, tenant);
    for (const payload of [
      { platform: 'windows' },
      {},
      { platform: 'ios', submitToStores: 'yes' },
      { platform: 'ios', x: 1 },
    ]) {
      const res = await consoleCall(t, tenant, 'POST', buildUrl(operator.id), payload);
      const body = expectError(res, 400, 'invalid_request');
      assert.ok((body.details ?? []).length > 0, res.body);
    }
  });

  test('role admin or above; a member below gets 403 forbidden, a stranger 404', async () => {
    const operator = await makeOperator(t, tenant);
    for (const role of ['developer', 'viewer'] as const) {
      const token = await addMember(t, tenant, role);
      const res = await call(t.app, {
        method: 'POST',
        url: buildUrl(operator.id),
        headers: bearer(token),
        payload: { platform: 'android' },
      });
      expectError(res, 403, 'forbidden');
      if (role === 'viewer') {
        const list = await call(t.app, {
          method: 'GET',
          url: `/api/console/operators/${operator.id}/mobile-builds`,
          headers: bearer(token),
        });
        assert.equal(list.statusCode, 200, list.body);
      }
    }
    const stranger = await createTestTenant(t);
    expectError(
      await consoleCall(t, stranger, 'POST', buildUrl(operator.id), { platform: 'android' }),
      404,
      'not_found',
    );
    expectError(
      await consoleCall(t, tenant, 'POST', buildUrl('op_01m8a7c30nnp98gz61y3yxyv71'), {
        platform: 'android',
      }),
      404,
      'not_found',
    );
    expectError(
      await call(t.app, { method: 'POST', url: buildUrl(operator.id), payload: { platform: 'ios' } }),
      401,
      'unauthorized',
    );
    expectError(
      await call(t.app, {
        method: 'POST',
        url: buildUrl(operator.id),
        headers: keyOf(tenant.apiKey),
        payload: { platform: 'ios' },
      }),
      401,
      'unauthorized',
    );
  });
});

describe('mobile build dispatch: GitHub repository dispatch against a local fake', () => {
  let t: TestApp;
  let tenant: TestTenant;
  const github = new FakeGitHub();
  const token = 'ghp_dispatch_token_for_tests';

  before(async () => {
    const apiUrl = await github.start();
    t = await buildTestApp({
      config: {
        publicUrl: 'https://api.example.test',
        mobileBuild: { dispatchToken: token, repository: 'acme/white-label', githubApiUrl: apiUrl },
      },
    });
    tenant = await createTestTenant(t);
  });
  after(async () => {
    await t.close();
    await github.close();
  });
  beforeEach(() => {
    github.requests.length = 0;
    github.answer = { status: 204 };
  });

  test('202 {queued: true, devMode: false, build}; the dispatch path, headers and body', async () => {
    const operator = await makeOperator(t, tenant, {
      name: 'Vintage Vinyl',
      brand: { name: 'Vintage Vinyl', colors: { primary: '#101010' } },
      app: { appName: 'Vinyl', androidPackage: 'com.vinyl.app', iosBundleId: 'com.vinyl.app' },
    });
    const res = await consoleCall(t, tenant, 'POST', buildUrl(operator.id), {
      platform: 'ios',
      submitToStores: true,
    });
    assert.equal(res.statusCode, 202, res.body);
    const body = res.json<{ queued: boolean; devMode: boolean; build: Build }>();
    assert.deepEqual([body.queued, body.devMode, body.build.status], [true, false, 'queued']);
    assert.equal(github.requests.length, 1);
    const sent = github.requests[0];
    assert.ok(sent !== undefined);
    assert.equal(sent.method, 'POST');
    assert.equal(sent.url, '/repos/acme/white-label/dispatches');
    assert.equal(sent.headers.authorization, `Bearer ${token}`);
    assert.equal(sent.headers.accept, 'application/vnd.github+json');
    assert.equal(sent.headers['x-github-api-version'], '2022-11-28');
    const dispatched = JSON.parse(sent.body) as {
      event_type: string;
      client_payload: Record<string, unknown>;
    };
    assert.equal(dispatched.event_type, 'mobile-build');
    const payload = dispatched.client_payload;
    assert.ok(
      Object.keys(payload).length <= 10,
      'GitHub allows at most 10 top-level client_payload properties',
    );
    assert.equal(payload.buildId, body.build.id);
    assert.equal(payload.tenantId, tenant.tenantId);
    assert.equal(payload.operatorId, operator.id);
    assert.equal(payload.platform, 'ios');
    assert.equal(payload.submitToStores, true);
    assert.deepEqual(payload.app, {
      appName: 'Vinyl',
      androidPackage: 'com.vinyl.app',
      iosBundleId: 'com.vinyl.app',
    });
    assert.equal((payload.brand as { name: string }).name, 'Vintage Vinyl');
    const callback = payload.callback as { url: string; secret: string };
    assert.equal(callback.url, `https://api.example.test/api/public/mobile-builds/${body.build.id}/callback`);
    assert.match(callback.secret, /^[0-9a-f]{64}$/);
    assert.ok(!sent.body.includes(token), 'the dispatch token itself is never in the payload');
  });

  test("GitHub's refusals map to clear errors; each build is recorded failed, never half", async () => {
    const operator = await makeOperator(t, tenant);
    const cases: {
      answer: FakeGitHub['answer'];
      status: number;
      code: string;
      message: RegExp;
      retryAfter?: string;
    }[] = [
      {
        answer: { status: 401, body: { message: 'Bad credentials' } },
        status: 502,
        code: 'upstream_error',
        message: /contents read\/write/,
      },
      {
        answer: { status: 403, body: { message: 'Resource not accessible by personal access token' } },
        status: 502,
        code: 'upstream_error',
        message: /contents read\/write permission on acme\/white-label/,
      },
      {
        answer: { status: 404, body: { message: 'Not Found' } },
        status: 502,
        code: 'upstream_error',
        message: /no repository acme\/white-label/,
      },
      {
        answer: { status: 422, body: { message: 'client_payload is too large' } },
        status: 502,
        code: 'upstream_error',
        message: /client_payload is too large/,
      },
      {
        answer: { status: 429, headers: { 'retry-after': '42' } },
        status: 503,
        code: 'service_unavailable',
        message: /rate limiting/,
        retryAfter: '42',
      },
      {
        answer: {
          status: 403,
          headers: {
            'x-ratelimit-remaining': '0',
            'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 30),
          },
          body: { message: 'API rate limit exceeded' },
        },
        status: 503,
        code: 'service_unavailable',
        message: /rate limiting/,
      },
      {
        answer: { status: 500, body: { message: 'boom' } },
        status: 502,
        code: 'upstream_error',
        message: /retry later/,
      },
      {
        answer: { status: 204, hang: true },
        status: 502,
        code: 'upstream_error',
        message: /could not be reached/,
      },
    ];
    for (const c of cases) {
      github.answer = c.answer;
      const res = await consoleCall(t, tenant, 'POST', buildUrl(operator.id), { platform: 'android' });
      const body = expectError(res, c.status, c.code);
      assert.match(body.message, c.message, JSON.stringify(c.answer));
      if (c.retryAfter !== undefined) assert.equal(res.headers['retry-after'], c.retryAfter);
      if (c.status === 503) assert.ok(Number(res.headers['retry-after']) >= 1);
    }
    const list = await consoleCall(
      t,
      tenant,
      'GET',
      `/api/console/operators/${operator.id}/mobile-builds?limit=100`,
    );
    const builds = list.json<{ data: Build[] }>().data;
    assert.equal(builds.length, cases.length);
    for (const build of builds) {
      assert.equal(build.status, 'failed');
      assert.ok(build.error !== null && build.error.length > 0);
    }
  });

  test('the signed callback: forged -> 401; signed -> succeeded with the build URL; events reach webhooks', async () => {
    const operator = await makeOperator(t, tenant);
    const res = await consoleCall(t, tenant, 'POST', buildUrl(operator.id), { platform: 'android' });
    assert.equal(res.statusCode, 202, res.body);
    const build = res.json<{ build: Build }>().build;
    const sent = JSON.parse(github.requests[0]?.body ?? '{}') as {
      client_payload: { callback: { secret: string } };
    };
    const secret = sent.client_payload.callback.secret;
    const url = `/api/public/mobile-builds/${build.id}/callback`;
    const body = JSON.stringify({ status: 'succeeded', buildUrl: 'https://expo.dev/builds/123' });
    const sign = (key: string, text: string) =>
      `sha256=${createHmac('sha256', key).update(text).digest('hex')}`;
    const post = (headers: Record<string, string>, payload = body) =>
      call(t.app, {
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', ...headers },
        payload,
      });
    expectError(await post({}), 401, 'invalid_token');
    expectError(await post({ 'x-svc-signature': sign('wrong-secret', body) }), 401, 'invalid_token');
    // Signed, but not this body: the signature covers the exact bytes.
    expectError(await post({ 'x-svc-signature': sign(secret, body) }, `${body} `), 401, 'invalid_token');
    const ok = await post({ 'x-svc-signature': sign(secret, body) });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(
      [ok.json<Build>().status, ok.json<Build>().buildUrl],
      ['succeeded', 'https://expo.dev/builds/123'],
    );
    // Repeated: nothing changes. Contradicted: 409.
    assert.equal((await post({ 'x-svc-signature': sign(secret, body) })).statusCode, 200);
    const failed = JSON.stringify({ status: 'failed', error: 'late' });
    expectError(await post({ 'x-svc-signature': sign(secret, failed) }, failed), 409, 'conflict');
    const events = await call(t.app, {
      method: 'GET',
      url: '/v1/events?type=mobile_build.*',
      headers: keyOf(tenant.apiKey),
    });
    assert.equal(events.statusCode, 200, events.body);
    const types = events
      .json<{ data: { type: string; data: { buildId: string } }[] }>()
      .data.filter((e) => e.data.buildId === build.id)
      .map((e) => e.type)
      .sort();
    assert.deepEqual(types, ['mobile_build.queued', 'mobile_build.succeeded']);
    // An unknown build: 404.
    expectError(
      await call(t.app, {
        method: 'POST',
        url: '/api/public/mobile-builds/mbd_01m8a7c30nnp98gz61y3yxyv71/callback',
        headers: { 'content-type': 'application/json', 'x-svc-signature': sign(secret, body) },
        payload: body,
      }),
      404,
      'not_found',
    );
  });
});
