import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, connectSession, createApiKey, createTestTenant, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { challengeOf, expectError } from './support.ts';

/**
 * Which credential each route family accepts, and the exact error for every other case
 * (spec "Authentication" and "Errors"). One app; each test makes its own tenant.
 */
describe('credentials: accepted where they belong, refused elsewhere', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let session: { token: string; sessionId: string; actorId: string };

  before(async () => {
    t = await buildTestApp({ config: { authFailureLimit: 1_000_000 } });
    tenant = await createTestTenant(t);
    session = await connectSession(t, tenant.apiKey);
  });
  after(() => t.close());

  const me = (headers: Record<string, string>) => call(t.app, { method: 'GET', url: '/v1/me', headers });
  const authUser = (headers: Record<string, string>) =>
    call(t.app, { method: 'GET', url: '/api/auth/user', headers });
  const consoleTenants = (headers: Record<string, string>) =>
    call(t.app, { method: 'GET', url: '/api/console/tenants', headers });
  const connect = (headers: Record<string, string>) =>
    call(t.app, {
      method: 'POST',
      url: '/v1/runtime/connect',
      headers,
      payload: { modules: ['rooms'], actor: { type: 'end_user', id: 'test:x', identityProvider: 'test' } },
    });

  test('an API key works as Authorization: Bearer and as X-API-Key on /v1/*', async () => {
    for (const headers of [bearer(tenant.apiKey), { 'x-api-key': tenant.apiKey }]) {
      const res = await me(headers);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json<{ principal: { kind: string }; tenant: { id: string } }>();
      assert.equal(body.principal.kind, 'api_key');
      assert.equal(body.tenant.id, tenant.tenantId);
      assert.equal((await connect(headers)).statusCode, 201);
    }
  });

  test('a session token works on /v1/me', async () => {
    const res = await me(bearer(session.token));
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json<{ principal: { kind: string } }>().principal.kind, 'session');
  });

  test('a hosted-auth JWT works on the console, /api/auth/user and /v1/me', async () => {
    assert.equal((await consoleTenants(bearer(tenant.ownerToken))).statusCode, 200);
    assert.equal((await authUser(bearer(tenant.ownerToken))).statusCode, 200);
    const res = await me(bearer(tenant.ownerToken));
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json<{ principal: { kind: string } }>().principal.kind, 'hosted_user');
  });

  test('an API key or a session token on a console route -> 401 unauthorized', async () => {
    const urls = ['/api/console/tenants', `/api/console/tenants/${tenant.tenantId}/api-keys`];
    for (const url of urls) {
      for (const headers of [bearer(tenant.apiKey), { 'x-api-key': tenant.apiKey }, bearer(session.token)]) {
        const res = await call(t.app, { method: 'GET', url, headers });
        expectError(res, 401, 'unauthorized');
        assert.deepEqual(challengeOf(res), { scheme: 'Bearer', params: { realm: 'svc' } });
      }
    }
  });

  test('an API key or a session token on /api/auth/user -> 401 unauthorized', async () => {
    expectError(await authUser(bearer(tenant.apiKey)), 401, 'unauthorized');
    expectError(await authUser(bearer(session.token)), 401, 'unauthorized');
  });

  test('a hosted JWT or a session token on /v1/runtime/connect -> 401 unauthorized', async () => {
    const hosted = await connect(bearer(tenant.ownerToken));
    expectError(hosted, 401, 'unauthorized');
    assert.match(hosted.json<{ message: string }>().message, /hosted-auth JWT/);
    expectError(await connect(bearer(session.token)), 401, 'unauthorized');
  });

  test('session revocation by id/actor takes an API key; sign-out takes the session token itself', async () => {
    const revokeWith = (headers: Record<string, string>) =>
      call(t.app, {
        method: 'POST',
        url: '/v1/runtime/sessions/revoke',
        headers,
        payload: { sessionId: session.sessionId },
      });
    expectError(await revokeWith(bearer(session.token)), 401, 'unauthorized');
    expectError(await revokeWith(bearer(tenant.ownerToken)), 401, 'unauthorized');
    const signOut = (headers: Record<string, string>) =>
      call(t.app, { method: 'DELETE', url: '/v1/runtime/session', headers });
    expectError(await signOut(bearer(tenant.apiKey)), 401, 'unauthorized');
    expectError(await signOut(bearer(tenant.ownerToken)), 401, 'unauthorized');
  });

  test('no credential -> 401 unauthorized with a bare Bearer challenge', async () => {
    for (const url of ['/v1/me', '/api/auth/user', '/api/console/tenants']) {
      const res = await call(t.app, { method: 'GET', url });
      expectError(res, 401, 'unauthorized');
      assert.deepEqual(challengeOf(res), { scheme: 'Bearer', params: { realm: 'svc' } });
    }
  });

  test('an unsupported scheme (Basic) is no supported credential -> 401 unauthorized', async () => {
    expectError(await me({ authorization: 'Basic dXNlcjpwYXNz' }), 401, 'unauthorized');
  });

  test('an unverifiable JWT -> 401 invalid_token with error="invalid_token"', async () => {
    const [header, payload] = session.token.split('.');
    const res = await me(bearer(`${header}.${payload}.${'A'.repeat(86)}`));
    expectError(res, 401, 'invalid_token');
    const { scheme, params } = challengeOf(res);
    assert.equal(scheme, 'Bearer');
    assert.equal(params.realm, 'svc');
    assert.equal(params.error, 'invalid_token');
    const garbage = await me(bearer('not-a-jwt-nor-a-key'));
    expectError(garbage, 401, 'invalid_token');
    assert.equal(challengeOf(garbage).params.error, 'invalid_token');
  });

  test('a bad API key -> 401 invalid_api_key with error="invalid_token"', async () => {
    for (const headers of [bearer('svc_live_nope'), { 'x-api-key': 'svc_live_nope' }, { 'x-api-key': '' }]) {
      const res = await me(headers);
      expectError(res, 401, 'invalid_api_key');
      assert.equal(challengeOf(res).params.error, 'invalid_token');
    }
  });

  test('a key without the route scope -> 403 insufficient_scope naming the scope', async () => {
    const roomsOnly = await createApiKey(t, tenant.tenantId, ['rooms:read']);
    const res = await connect({ 'x-api-key': roomsOnly });
    const body = expectError(res, 403, 'insufficient_scope');
    assert.match(body.message, /sessions:manage/);
    const { params } = challengeOf(res);
    assert.equal(params.error, 'insufficient_scope');
    assert.equal(params.scope, 'sessions:manage');
    // The same key is a valid credential where no scope is needed.
    assert.equal((await me({ 'x-api-key': roomsOnly })).statusCode, 200);
  });

  test('two credentials at once (Authorization + X-API-Key) -> 400 invalid_request, even if both are valid', async () => {
    for (const authorization of [tenant.apiKey, session.token, tenant.ownerToken]) {
      const res = await me({ authorization: `Bearer ${authorization}`, 'x-api-key': tenant.apiKey });
      const body = expectError(res, 400, 'invalid_request');
      assert.match(body.message, /one credential/);
      assert.equal(challengeOf(res).params.error, 'invalid_request');
    }
  });

  test('a credential on a public route is ignored (no auth config)', async () => {
    const res = await call(t.app, { method: 'GET', url: '/healthz', headers: bearer('garbage') });
    assert.equal(res.statusCode, 200);
  });
});
