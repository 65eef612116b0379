import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, connectSession, createTestTenant, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { challengeOf, expectError } from './support.ts';

describe('session tokens: room and module restrictions', () => {
  let t: TestApp;
  let tenant: TestTenant;

  before(async () => {
    t = await buildTestApp({
      config: { authFailureLimit: 1_000_000 },
      extend(app) {
        app.get(
          '/test/rooms/:roomId',
          {
            config: { auth: { credentials: ['session'], scope: 'rooms:read' } },
            schema: { operationId: 'testRoom', summary: 'Test room route' },
          },
          async (request) => ({ roomId: (request.params as { roomId: string }).roomId }),
        );
        app.post(
          '/test/chat',
          {
            config: { auth: { credentials: ['session', 'api_key'], scope: 'chat:write' } },
            schema: { operationId: 'testChat', summary: 'Test chat route' },
          },
          async () => ({ sent: true }),
        );
      },
    });
    tenant = await createTestTenant(t);
  });
  after(() => t.close());

  const room = (token: string, roomId: string) =>
    call(t.app, { method: 'GET', url: `/test/rooms/${roomId}`, headers: bearer(token) });

  test('a token minted for a room opens that room only; another :roomId -> 403', async () => {
    const s = await connectSession(t, tenant.apiKey, { modules: ['rooms'], roomId: 'room_a' });
    assert.equal((await room(s.token, 'room_a')).statusCode, 200);
    const body = expectError(await room(s.token, 'room_b'), 403, 'forbidden');
    assert.match(body.message, /room_a/);
  });

  test('a token without a room opens any room', async () => {
    const s = await connectSession(t, tenant.apiKey, { modules: ['rooms'] });
    assert.equal((await room(s.token, 'room_a')).statusCode, 200);
    assert.equal((await room(s.token, 'room_b')).statusCode, 200);
  });

  test('scopes come only from the modules: a rooms-only token cannot chat', async () => {
    const roomsOnly = await connectSession(t, tenant.apiKey, { modules: ['rooms'] });
    const me = await call(t.app, { method: 'GET', url: '/v1/me', headers: bearer(roomsOnly.token) });
    assert.deepEqual(me.json<{ principal: { scopes: string[] } }>().principal.scopes, ['rooms:read']);
    const refused = await call(t.app, {
      method: 'POST',
      url: '/test/chat',
      headers: bearer(roomsOnly.token),
    });
    const body = expectError(refused, 403, 'insufficient_scope');
    assert.match(body.message, /chat:write/);
    assert.equal(challengeOf(refused).params.scope, 'chat:write');

    const chatter = await connectSession(t, tenant.apiKey, { modules: ['chat'] });
    const ok = await call(t.app, { method: 'POST', url: '/test/chat', headers: bearer(chatter.token) });
    assert.equal(ok.statusCode, 200, ok.body);
  });

  test('a module with no runtime scopes (webhooks) gives a session token none', async () => {
    const s = await connectSession(t, tenant.apiKey, { modules: ['webhooks'] });
    const me = await call(t.app, { method: 'GET', url: '/v1/me', headers: bearer(s.token) });
    assert.deepEqual(me.json<{ principal: { scopes: string[] } }>().principal.scopes, []);
  });

  test('an API key is not accepted on a session-only route', async () => {
    expectError(await room(tenant.apiKey, 'room_a'), 401, 'unauthorized');
  });
});
