import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, connectSession, createTestTenant, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { eventually } from '../support/eventually.ts';
import { expectError } from './support.ts';

describe('session token revocation and sign-out', () => {
  let t: TestApp;
  let tenant: TestTenant;

  before(async () => {
    t = await buildTestApp({ config: { authFailureLimit: 1_000_000 } });
    tenant = await createTestTenant(t);
  });
  after(() => t.close());

  const me = (token: string) => call(t.app, { method: 'GET', url: '/v1/me', headers: bearer(token) });
  const revoke = (payload: Record<string, unknown>, key = tenant.apiKey) =>
    call(t.app, {
      method: 'POST',
      url: '/v1/runtime/sessions/revoke',
      headers: { 'x-api-key': key },
      payload,
    });

  test('revoke one token by sessionId: that token stops, the actor’s other tokens do not', async () => {
    const one = await connectSession(t, tenant.apiKey, { actorId: 'test:rev-1' });
    const two = await connectSession(t, tenant.apiKey, { actorId: 'test:rev-1' });
    assert.equal((await me(one.token)).statusCode, 200);
    const res = await revoke({ sessionId: one.sessionId });
    assert.equal(res.statusCode, 200, res.body);
    const body = expectError(await me(one.token), 401, 'invalid_token');
    assert.match(body.message, /revoked/);
    assert.equal((await me(two.token)).statusCode, 200);
  });

  test('revoke by actorId: every token issued so far stops; a token minted afterwards works', async () => {
    const one = await connectSession(t, tenant.apiKey, { actorId: 'test:rev-2' });
    const two = await connectSession(t, tenant.apiKey, { actorId: 'test:rev-2', modules: ['chat'] });
    const bystander = await connectSession(t, tenant.apiKey, { actorId: 'test:bystander' });
    assert.equal(one.actorId, two.actorId);
    const res = await revoke({ actorId: one.actorId });
    assert.equal(res.statusCode, 200, res.body);
    expectError(await me(one.token), 401, 'invalid_token');
    expectError(await me(two.token), 401, 'invalid_token');
    assert.equal((await me(bystander.token)).statusCode, 200);
    const fresh = await connectSession(t, tenant.apiKey, { actorId: 'test:rev-2' });
    const after = await me(fresh.token);
    assert.equal(after.statusCode, 200, `a token minted right after the revocation: ${after.body}`);
  });

  test('revoke validation: exactly one of sessionId or actorId, in their id forms', async () => {
    expectError(await revoke({}), 400, 'invalid_request');
    const s = await connectSession(t, tenant.apiKey);
    expectError(await revoke({ sessionId: s.sessionId, actorId: s.actorId }), 400, 'invalid_request');
    expectError(await revoke({ sessionId: 'nope' }), 400, 'invalid_request');
    // The actor is named as the API names it (`<provider>:<external_id>`), never by an internal id.
    expectError(await revoke({ actorId: '00000000-0000-4000-8000-000000000000' }), 400, 'invalid_request');
    expectError(await revoke({ actorId: 'test:someone' }), 404, 'not_found');
  });

  test('only ids this tenant issued can be revoked, by either form; revoking again keeps one row', async () => {
    const count = async () =>
      (
        await t.db.query<{ n: number }>(
          'select count(*)::int as n from credential_revocations where tenant_id = $1',
          [tenant.tenantId],
        )
      ).rows[0]?.n;
    const before = await count();
    const stranger = await createTestTenant(t);
    const theirs = await connectSession(t, stranger.apiKey, { actorId: 'test:theirs' });
    // Never issued, issued to another tenant: 404 as for an unknown actor, and nothing written.
    expectError(await revoke({ sessionId: 'ses_01jzzzzzzzzzzzzzzzzzzzzzzz' }), 404, 'not_found');
    expectError(await revoke({ sessionId: theirs.sessionId }), 404, 'not_found');
    expectError(await revoke({ actorId: theirs.actorId }), 404, 'not_found');
    assert.equal(await count(), before);
    assert.equal((await me(theirs.token)).statusCode, 200, 'the other tenant’s token still works');

    const mine = await connectSession(t, tenant.apiKey, { actorId: 'test:again' });
    for (let i = 0; i < 3; i++) {
      assert.equal((await revoke({ sessionId: mine.sessionId })).statusCode, 200);
      assert.equal((await revoke({ actorId: mine.actorId })).statusCode, 200);
    }
    assert.equal(await count(), (before ?? 0) + 2, 'one row for the session, one for the actor');
    expectError(await me(mine.token), 401, 'invalid_token');
    const fresh = await connectSession(t, tenant.apiKey, { actorId: 'test:again' });
    assert.equal((await me(fresh.token)).statusCode, 200, 'a token minted after the last revocation works');
  });

  test('DELETE /v1/runtime/session signs the calling token out', async () => {
    const s = await connectSession(t, tenant.apiKey);
    const other = await connectSession(t, tenant.apiKey, { actorId: 'test:other-device' });
    const res = await call(t.app, { method: 'DELETE', url: '/v1/runtime/session', headers: bearer(s.token) });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { revoked: true });
    expectError(await me(s.token), 401, 'invalid_token');
    assert.equal((await me(other.token)).statusCode, 200);
  });

  test('revocations reach a second instance on the same database within a second', async (ctx) => {
    const b = await buildTestApp({
      config: { authFailureLimit: 1_000_000 },
      ...(t.db.kind === 'pglite' ? { db: t.db } : {}),
    });
    try {
      const s = await connectSession(t, tenant.apiKey);
      const meOnB = () => call(b.app, { method: 'GET', url: '/v1/me', headers: bearer(s.token) });
      assert.equal((await meOnB()).statusCode, 200, 'a token minted on A verifies on B');
      assert.equal((await revoke({ sessionId: s.sessionId })).statusCode, 200);
      const revokedAt = Date.now();
      await eventually(
        'B to refuse the revoked session token',
        async () => (await meOnB()).statusCode === 401,
        {
          timeoutMs: 3000,
          stepMs: 10,
        },
      );
      ctx.diagnostic(`instance B refused the revoked session token after ${Date.now() - revokedAt} ms`);
    } finally {
      await b.close();
    }
  });
});
