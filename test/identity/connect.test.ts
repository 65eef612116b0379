import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { tenantTx } from '../../src/core/db/tenant-tx.ts';
import { createTestTenant, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { expectError } from './support.ts';

interface Connected {
  token: string;
  tokenType: string;
  expiresAt: string;
  expiresIn: number;
  sessionId: string;
  actor: { id: string; type: string; identityProvider: string };
  modules: string[];
  roomId: string | null;
  scopes: string[];
}

describe('POST /v1/runtime/connect', () => {
  let t: TestApp;
  let tenant: TestTenant;

  before(async () => {
    t = await buildTestApp({ config: { authFailureLimit: 1_000_000 } });
    tenant = await createTestTenant(t);
  });
  after(() => t.close());

  const connect = (payload: Record<string, unknown>, key = tenant.apiKey) =>
    call(t.app, { method: 'POST', url: '/v1/runtime/connect', headers: { 'x-api-key': key }, payload });
  const actor = (id = 'acme-oidc:user_42') => ({ type: 'end_user', id, identityProvider: 'acme-oidc' });

  test('mints a short-lived EdDSA token with kid, published at /.well-known/jwks.json', async () => {
    const res = await connect({ modules: ['rooms', 'chat'], actor: actor(), roomId: 'room_1' });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json<Connected>();
    assert.equal(body.tokenType, 'Bearer');
    // exp is whole seconds from the mint time, so up to a second of the lifetime may already be gone.
    assert.ok(
      body.expiresIn >= t.config.sessionTtlSeconds - 1 && body.expiresIn <= t.config.sessionTtlSeconds,
    );
    assert.deepEqual(body.modules, ['rooms', 'chat']);
    assert.equal(body.roomId, 'room_1');
    assert.deepEqual(body.scopes, ['chat:read', 'chat:write', 'rooms:read']);
    // The core Actor, as the request named it: its id is the provider-qualified one, no internal row id.
    assert.deepEqual(body.actor, actor());
    assert.doesNotMatch(res.body, /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
    const header = decodeProtectedHeader(body.token);
    const claims = decodeJwt(body.token);
    assert.equal(header.alg, 'EdDSA');
    assert.equal(claims.jti, body.sessionId);
    assert.equal((claims.exp ?? 0) - (claims.iat ?? 0), t.config.sessionTtlSeconds);
    assert.equal(Date.parse(body.expiresAt), (claims.exp ?? 0) * 1000);
    const jwks = await call(t.app, { method: 'GET', url: '/.well-known/jwks.json' });
    const keys = jwks.json<{ keys: { kid: string; d?: string }[] }>().keys;
    assert.ok(keys.some((k) => k.kid === header.kid));
    assert.ok(
      keys.every((k) => k.d === undefined),
      'private key material must not be published',
    );
  });

  test('the same external id -> the same actor; another -> another', async () => {
    const first = (await connect({ modules: ['chat'], actor: actor('acme-oidc:same') })).json<Connected>();
    const second = (
      await connect({ modules: ['rooms'], actor: { ...actor('acme-oidc:same'), type: 'agent' } })
    ).json<Connected>();
    assert.equal(second.actor.id, first.actor.id);
    assert.equal(second.actor.type, 'agent');
    const other = (await connect({ modules: ['chat'], actor: actor('acme-oidc:other') })).json<Connected>();
    assert.notEqual(other.actor.id, first.actor.id);
    // One stored actor per external id: the second connect updated the first's row.
    const stored = await tenantTx(t.db, { tenantId: tenant.tenantId }, (tx) =>
      tx.query<{ external_id: string; type: string }>(
        `select external_id, type from actors where external_id in ('acme-oidc:same', 'acme-oidc:other')
         order by external_id`,
      ),
    );
    assert.deepEqual(stored.rows, [
      { external_id: 'acme-oidc:other', type: 'end_user' },
      { external_id: 'acme-oidc:same', type: 'agent' },
    ]);
  });

  test('an unknown module -> 400 with details naming it', async () => {
    const res = await connect({ modules: ['rooms', 'teleport'], actor: actor() });
    const body = expectError(res, 400, 'invalid_request');
    assert.deepEqual(
      body.details?.map((d) => [d.field, d.code]),
      [['/body/modules/1', 'unknown_module']],
    );
  });

  test('modules this service does not run (billing, search) -> 400 naming the ones it runs', async () => {
    const res = await connect({ modules: ['chat', 'billing', 'search'], actor: actor() });
    const body = expectError(res, 400, 'invalid_request');
    const running = t.app.services.registry.names;
    assert.deepEqual(running.includes('billing') || running.includes('search'), false);
    assert.equal(body.message, `unknown module: billing, search; this service runs: ${running.join(', ')}`);
    assert.deepEqual(
      body.details?.map((d) => [d.field, d.code]),
      [
        ['/body/modules/1', 'unknown_module'],
        ['/body/modules/2', 'unknown_module'],
      ],
    );
  });

  test('a bad actor id form -> 400 with details', async () => {
    for (const id of ['no-provider', ':missing-provider', 'Upper:case', 'acme: spaced', 'acme:']) {
      const body = expectError(
        await connect({ modules: ['rooms'], actor: actor(id) }),
        400,
        'invalid_request',
      );
      assert.ok(
        body.details?.some((d) => d.field === '/body/actor/id'),
        `${id}: ${JSON.stringify(body.details)}`,
      );
    }
  });

  test('a bad roomId form -> 400 with details', async () => {
    for (const roomId of ['', 'room with spaces', 'room/../x', 'x'.repeat(129)]) {
      const body = expectError(
        await connect({ modules: ['rooms'], actor: actor(), roomId }),
        400,
        'invalid_request',
      );
      assert.ok(
        body.details?.some((d) => d.field === '/body/roomId'),
        JSON.stringify(body.details),
      );
    }
  });

  test('a bad actor type or missing fields -> 400', async () => {
    expectError(
      await connect({ modules: ['rooms'], actor: { ...actor(), type: 'admin' } }),
      400,
      'invalid_request',
    );
    expectError(await connect({ modules: [], actor: actor() }), 400, 'invalid_request');
    expectError(await connect({ actor: actor() }), 400, 'invalid_request');
    expectError(
      await connect({ modules: ['rooms'], actor: actor(), tenantId: 'ten_x' }),
      400,
      'invalid_request',
    );
  });

  test('a module the tenant disabled -> 403 module_disabled', async () => {
    const own = await createTestTenant(t);
    await tenantTx(t.db, { tenantId: own.tenantId }, (tx) =>
      tx.query(`update tenant_modules set enabled = false where module = 'chat'`),
    );
    const res = await connect({ modules: ['rooms', 'chat'], actor: actor() }, own.apiKey);
    const body = expectError(res, 403, 'module_disabled');
    assert.match(body.message, /chat/);
    assert.equal((await connect({ modules: ['rooms'], actor: actor() }, own.apiKey)).statusCode, 201);
  });
});
