import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { beforeEach, describe, test } from 'node:test';
import { call } from '../../../../test/helper.ts';
import { type Build, DISPATCH, type FakeGitHub, githubSuite, requestBuild } from './mobile-build-support.ts';
import { consoleCall, expectError, keyOf, makeOperator } from './support.ts';

describe('mobile build dispatch: GitHub repository dispatch against a local fake', () => {
  const s = githubSuite();
  const token = DISPATCH.token;
  beforeEach(() => {
    s.github.requests.length = 0;
    s.github.answer = { status: 204 };
  });

  test('202 {queued: true, devMode: false, build}; the dispatch path, headers and body', async () => {
    const operator = await makeOperator(s.t, s.tenant, {
      name: 'Vintage Vinyl',
      brand: { name: 'Vintage Vinyl', colors: { primary: '#101010' } },
      app: { appName: 'Vinyl', androidPackage: 'com.vinyl.app', iosBundleId: 'com.vinyl.app' },
    });
    const res = await requestBuild(s.t, s.tenant, operator.id, {
      platform: 'ios',
      submitToStores: true,
    });
    assert.equal(res.statusCode, 202, res.body);
    const body = res.json<{ queued: boolean; devMode: boolean; build: Build }>();
    assert.deepEqual([body.queued, body.devMode, body.build.status], [true, false, 'queued']);
    assert.equal(s.github.requests.length, 1);
    const sent = s.github.requests[0];
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
    assert.equal(payload.tenantId, s.tenant.tenantId);
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
    const operator = await makeOperator(s.t, s.tenant);
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
      s.github.answer = c.answer;
      const res = await requestBuild(s.t, s.tenant, operator.id, { platform: 'android' });
      const body = expectError(res, c.status, c.code);
      assert.match(body.message, c.message, JSON.stringify(c.answer));
      if (c.retryAfter !== undefined) assert.equal(res.headers['retry-after'], c.retryAfter);
      if (c.status === 503) assert.ok(Number(res.headers['retry-after']) >= 1);
    }
    const list = await consoleCall(
      s.t,
      s.tenant,
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
    const operator = await makeOperator(s.t, s.tenant);
    const res = await requestBuild(s.t, s.tenant, operator.id, { platform: 'android' });
    assert.equal(res.statusCode, 202, res.body);
    const build = res.json<{ build: Build }>().build;
    const sent = JSON.parse(s.github.requests[0]?.body ?? '{}') as {
      client_payload: { callback: { secret: string } };
    };
    const secret = sent.client_payload.callback.secret;
    const url = `/api/public/mobile-builds/${build.id}/callback`;
    const body = JSON.stringify({ status: 'succeeded', buildUrl: 'https://expo.dev/builds/123' });
    const sign = (key: string, text: string) =>
      `sha256=${createHmac('sha256', key).update(text).digest('hex')}`;
    const post = (headers: Record<string, string>, payload = body) =>
      call(s.t.app, {
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
    const events = await call(s.t.app, {
      method: 'GET',
      url: '/v1/events?type=mobile_build.*',
      headers: keyOf(s.tenant.apiKey),
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
      await call(s.t.app, {
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
