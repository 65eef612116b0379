import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.ts';
import type { Database } from '../../src/core/db/database.ts';
import { createApiKey } from '../../src/core/tenancy/api-keys.ts';
import { openDatabase } from '../../src/runtime.ts';
import { CLOSE } from '../../src/surfaces/realtime/index.ts';
import { bearer, connectSession, hostedToken, type TestTenant } from '../factories.ts';
import { call, type TestApp, testConfig } from '../helper.ts';
import { TestClient } from '../realtime-gateway/client.ts';
import { tenantWithRoom } from '../realtime-gateway/fixtures.ts';
import { type Deployment, deployment, type Instance, startInstance } from '../realtime-gateway/support.ts';

/**
 * Issue 28 items 1 and 14: revoking an API key revokes the session tokens it minted, on REST and on
 * `/v1/realtime` sockets, on every instance, for as long as such a token could live (past the ten minutes
 * an API key's own revocation row used to last). A hosted-auth JWT is no `/v1/realtime` credential.
 */

/** Heartbeats far apart: only the revocation can explain a close. */
const limits = { heartbeatMs: 600_000, idleTimeoutMs: 1_200_000 };

async function mintingKey(t: TestApp, tenant: TestTenant): Promise<{ key: string; id: string }> {
  const { db, clock, registry } = t.app.services;
  const created = await createApiKey(
    { db, tenantId: tenant.tenantId, clock },
    { name: 'backend', scopes: ['sessions:manage'], knownScopes: registry.knownScopes },
  );
  return { key: created.key, id: created.id };
}

async function revokeKey(t: TestApp, tenant: TestTenant, keyId: string): Promise<void> {
  const res = await call(t.app, {
    method: 'DELETE',
    url: `/api/console/tenants/${tenant.tenantId}/api-keys/${keyId}`,
    headers: bearer(tenant.ownerToken),
  });
  assert.equal(res.statusCode, 200, res.body);
}

async function meStatus(t: TestApp, token: string): Promise<{ status: number; body: string }> {
  const res = await call(t.app, { method: 'GET', url: '/v1/me', headers: bearer(token) });
  return { status: res.statusCode, body: res.body };
}

describe('sessions minted by a revoked API key, on two instances', () => {
  let shared: Deployment;
  let a: Instance;
  let b: Instance;
  let ownDb: Database | undefined;
  before(async () => {
    shared = deployment();
    a = await startInstance({ deployment: shared, limits });
    const config = testConfig();
    if (config.databaseUrl !== undefined) ownDb = await openDatabase(config);
    b = await startInstance({ deployment: shared, limits, db: ownDb ?? a.db });
  });
  after(async () => {
    await b.close();
    await a.close();
    await ownDb?.close();
    await shared.cleanup();
  });

  test('the key revoked on A: the session’s /v1/realtime socket on B closes with 4401, REST refuses it, the key mints no more', async (ctx) => {
    const tenant = await tenantWithRoom(a);
    const minter = await mintingKey(a, tenant);
    const session = await connectSession(a, minter.key);
    const kept = await connectSession(a, tenant.apiKey);
    const client = await TestClient.connect(b.wsUrl, session.token);
    const survivor = await TestClient.connect(b.wsUrl, kept.token);
    await client.join(tenant.roomId);
    assert.equal((await meStatus(b, session.token)).status, 200);

    const started = performance.now();
    await revokeKey(a, tenant, minter.id);
    assert.equal((await client.closed()).code, CLOSE.unauthorized);
    ctx.diagnostic(`closed on B ${Math.round(performance.now() - started)} ms after the revoke call on A`);
    for (const t of [a, b]) {
      const me = await meStatus(t, session.token);
      assert.equal(me.status, 401, me.body);
      assert.match(me.body, /the API key that minted it was revoked/);
    }
    const res = await call(a.app, {
      method: 'POST',
      url: '/v1/runtime/connect',
      headers: { 'x-api-key': minter.key },
      payload: { modules: ['rooms'], actor: { type: 'end_user', id: 'test:late', identityProvider: 'test' } },
    });
    assert.equal(res.statusCode, 401, res.body);
    // A session minted by another key is untouched.
    await survivor.join(tenant.roomId);
    assert.equal((await meStatus(b, kept.token)).status, 200);
    await survivor.close();
  });

  test('a hosted-auth JWT is not a /v1/realtime credential: 401 before the upgrade', async () => {
    const tenant = await tenantWithRoom(a);
    await assert.rejects(
      TestClient.connect(a.wsUrl, await hostedToken(a, tenant.ownerSub)),
      /upgrade refused: 401/,
    );
  });
});

describe('the revocation lasts as long as the sessions it voids', () => {
  const clock = new ManualClock(Date.now());
  let first: Instance;
  let later: Instance | undefined;
  before(async () => {
    // Sessions live 15 minutes (the default); an API key's revocation row used to last 10.
    first = await startInstance({ limits, clock, config: { sessionTtlSeconds: 900 } });
  });
  after(async () => {
    await later?.close();
    await first.close();
  });

  test('11 minutes after the key’s revocation its session is still refused, by a new instance too', async () => {
    const tenant = await tenantWithRoom(first);
    const minter = await mintingKey(first, tenant);
    const session = await connectSession(first, minter.key);
    await revokeKey(first, tenant, minter.id);
    assert.equal((await meStatus(first, session.token)).status, 401);
    clock.advance(11 * 60_000);
    assert.equal((await meStatus(first, session.token)).status, 401);
    // An instance started now reads the revocations that still matter from the database.
    later = await startInstance({ limits, clock, db: first.db, config: { sessionTtlSeconds: 900 } });
    const me = await meStatus(later, session.token);
    assert.equal(me.status, 401, me.body);
  });
});
