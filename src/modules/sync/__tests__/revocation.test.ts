import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hostedToken } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { createApiKey } from '../../../core/tenancy/api-keys.ts';
import { SYNC_CLOSE } from '../limits.ts';
import { documentData, getDocument, revokeSession } from './rest.ts';
import { twoInstancesSuite } from './suites.ts';
import {
  providerClose,
  type SyncInstance,
  type SyncTenant,
  socketUrl,
  synced,
  syncSession,
  tenantWithRoom,
  tryUpgrade,
} from './support.ts';

/**
 * Issue 28 items 1 and 14 on `/v1/sync`: every socket closes once its credential is revoked, on every
 * instance, whatever the credential: an API key (revoked in the console), a session token (revoked by id),
 * and a session token minted by an API key that is revoked. The periodic access check is a day apart, so
 * only the revocation can explain a close. Two instances on one database and one backplane.
 */

const s = twoInstancesSuite({ accessCheckIntervalMs: 24 * 3600_000, pingIntervalMs: 24 * 3600_000 });

/** A key of the tenant with these scopes: its secret and its id (to revoke it). */
async function keyOf(tenant: SyncTenant, scopes: string[]): Promise<{ key: string; id: string }> {
  const { db, clock, registry } = s.a.app.services;
  const created = await createApiKey(
    { db, tenantId: tenant.tenantId, clock },
    { name: `sync ${scopes.join(' ')}`, scopes, knownScopes: registry.knownScopes },
  );
  return { key: created.key, id: created.id };
}

/** DELETE /api/console/tenants/:tenantId/api-keys/:keyId as the tenant's owner, on instance A. */
async function revokeKey(tenant: SyncTenant, keyId: string): Promise<void> {
  const res = await call(s.a.app, {
    method: 'DELETE',
    url: `/api/console/tenants/${tenant.tenantId}/api-keys/${keyId}`,
    headers: { authorization: `Bearer ${tenant.ownerToken}` },
  });
  assert.equal(res.statusCode, 200, res.body);
}

async function storedText(t: SyncInstance, tenant: SyncTenant, docName: string): Promise<string> {
  return String((await documentData(t, tenant, docName)).t ?? '');
}

describe('revoked credentials on /v1/sync, on two instances', () => {
  test('an API key with sync:write: revoked on A, its socket on B closes with 4401 and its edits stop', async (ctx) => {
    const tenant = await tenantWithRoom(s.a);
    const writer = await keyOf(tenant, ['sync:read', 'sync:write']);
    const p = s.open(s.b, `${tenant.roomId}/key`, writer.key);
    await synced(p);
    p.doc.getText('t').insert(0, 'before;');
    await eventually(
      'the edit to be stored',
      async () => (await storedText(s.a, tenant, 'key')) === 'before;',
    );

    const closed = providerClose(p);
    const started = performance.now();
    await revokeKey(tenant, writer.id);
    assert.equal(await closed, SYNC_CLOSE.unauthorized);
    const ms = Math.round(performance.now() - started);
    // The provider stops on 44xx; an edit made now stays local.
    p.doc.getText('t').insert(0, 'after;');
    const rest = await getDocument(s.b, writer.key, tenant.roomId, 'key');
    assert.equal(rest.statusCode, 401, rest.body);
    const again = await tryUpgrade(socketUrl(s.b, `${tenant.roomId}/key`, writer.key));
    assert.ok('status' in again && again.status === 401, 'a new upgrade with the key is refused');
    assert.equal(await storedText(s.a, tenant, 'key'), 'before;');
    ctx.diagnostic(`closed on B ${ms} ms after the revoke call on A`);
  });

  test('a session token minted by an API key: the key revoked on A closes the session’s socket on B', async () => {
    const tenant = await tenantWithRoom(s.a);
    const minter = await keyOf(tenant, ['sessions:manage']);
    const session = await syncSession(s.a, minter.key);
    const other = await syncSession(s.a, tenant.apiKey);
    const p = s.open(s.b, `${tenant.roomId}/minted`, session.token);
    const q = s.open(s.b, `${tenant.roomId}/minted`, other.token);
    await Promise.all([synced(p), synced(q)]);

    const closed = providerClose(p);
    await revokeKey(tenant, minter.id);
    assert.equal(await closed, SYNC_CLOSE.unauthorized);
    // REST refuses the session too, on both instances; a session of another key goes on.
    for (const t of [s.a, s.b]) {
      const res = await getDocument(t, session.token, tenant.roomId, 'minted');
      assert.equal(res.statusCode, 401, res.body);
      assert.match(res.body, /API key that minted it was revoked/);
    }
    q.doc.getText('t').insert(0, 'still here');
    await eventually(
      'the other session’s edit to be stored',
      async () => (await storedText(s.a, tenant, 'minted')) === 'still here',
    );
    assert.ok(q.wsconnected);
  });

  test('a session token revoked by id on A: its socket on B closes with 4401', async () => {
    const tenant = await tenantWithRoom(s.a);
    const session = await syncSession(s.a, tenant.apiKey);
    const p = s.open(s.b, `${tenant.roomId}/session`, session.token);
    await synced(p);
    const closed = providerClose(p);
    await revokeSession(s.a, tenant.apiKey, session.sessionId);
    assert.equal(await closed, SYNC_CLOSE.unauthorized);
  });

  test('a hosted-auth JWT (a console user) is not a sync credential: 401 before the upgrade', async () => {
    const tenant = await tenantWithRoom(s.a);
    const result = await tryUpgrade(socketUrl(s.b, tenant.roomId, await hostedToken(s.b, tenant.ownerSub)));
    assert.ok('status' in result, 'no socket opens');
    assert.equal(result.status, 401);
    assert.match(result.body, /a hosted-auth JWT acts in a tenant here: send X-SVC-Tenant/);
  });
});
