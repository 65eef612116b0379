import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestTenant } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { ManualClock } from '../../../core/clock.ts';
import { systemTx } from '../../../core/db/tenant-tx.ts';
import { SYNC_CLOSE } from '../limits.ts';
import { deleteRoom, documentData, revokeSession } from './rest.ts';
import { syncSuite } from './suites.ts';
import {
  configureSync,
  createRoom,
  providerClose,
  type SyncTenant,
  socketUrl,
  synced,
  syncSession,
  syncToken,
  tenantWithRoom,
  upgradeOutcome,
} from './support.ts';

/**
 * Every close code the server decides on, triggered by its real condition and read as the stock provider
 * sees it. The app runs on a manual clock: token expiry and the access checks (every 30 s here) happen
 * when the test moves it, and the rate budget refills only then. Pings are a day apart, so moving the
 * clock never drops a peer for a pong it had no time to send.
 */

const ACCESS_CHECK_MS = 30_000;
const clock = new ManualClock(Date.now());
const s = syncSuite({
  tenants: 0,
  clock,
  limits: {
    pingIntervalMs: 24 * 3600_000,
    accessCheckIntervalMs: ACCESS_CHECK_MS,
    maxConnectionsPerDocument: 2,
  },
});

const storedText = async (tenant: SyncTenant, docName: string) =>
  (await documentData(s.t, tenant, docName)).t;
const refusal = (room: string, token: string) => upgradeOutcome(socketUrl(s.t, room, token));

describe('limits', () => {
  test('4413: an update that would grow the document past maxDocumentBytes; the document keeps what it had', async () => {
    const tenant = await tenantWithRoom(s.t);
    await configureSync(s.t, tenant, { enabled: true, config: { maxDocumentBytes: 1024 } });
    const p = s.open(`${tenant.roomId}/big`, await syncToken(s.t, tenant.apiKey));
    await synced(p);
    p.doc.getText('t').insert(0, 'small');
    await eventually(
      'the small edit to be stored',
      async () => (await storedText(tenant, 'big')) === 'small',
    );
    const closed = providerClose(p);
    const stopped = new Promise<number>((resolve) => p.once('closed', ({ code }) => resolve(code)));
    p.doc.getText('t').insert(5, 'x'.repeat(2000));
    assert.equal(await closed, SYNC_CLOSE.documentTooLarge);
    assert.equal(await stopped, SYNC_CLOSE.documentTooLarge, 'the stock provider stops reconnecting');
    assert.equal(await storedText(tenant, 'big'), 'small');
  });

  test('4429: more messages than maxUpdatesPerSecond allows (burst twice that)', async () => {
    const tenant = await tenantWithRoom(s.t);
    await configureSync(s.t, tenant, { enabled: true, config: { maxUpdatesPerSecond: 5 } });
    const p = s.open(`${tenant.roomId}/fast`, await syncToken(s.t, tenant.apiKey));
    await synced(p);
    const closed = providerClose(p);
    // Each insert is one update message; the clock does not move, so the budget of 10 never refills.
    for (let i = 0; i < 30; i++) p.doc.getText('t').insert(0, 'x');
    assert.equal(await closed, SYNC_CLOSE.rateLimited);
  });

  test('1013: one connection more than maxConnectionsPerDocument; the others go on', async () => {
    const tenant = await tenantWithRoom(s.t);
    const token = await syncToken(s.t, tenant.apiKey);
    const a = s.open(`${tenant.roomId}/cap`, token);
    const b = s.open(`${tenant.roomId}/cap`, token);
    await Promise.all([synced(a), synced(b)]);
    const c = s.open(`${tenant.roomId}/cap`, token);
    assert.equal(await providerClose(c), SYNC_CLOSE.tryAgainLater);
    c.destroy();
    a.doc.getText('t').insert(0, 'still here');
    await eventually('b to receive a’s edit', () => b.doc.getText('t').toString() === 'still here');
    assert.ok(a.wsconnected && b.wsconnected);
    // Another document of the same room has its own count.
    const other = s.open(`${tenant.roomId}/other`, token);
    await synced(other);
  });
});

describe('access ends', () => {
  test('4401: the session token passes its exp on the app clock', async () => {
    const tenant = await tenantWithRoom(s.t);
    const p = s.open(`${tenant.roomId}/exp`, await syncToken(s.t, tenant.apiKey));
    await synced(p);
    const closed = providerClose(p);
    clock.advance(s.t.config.sessionTtlSeconds * 1000 + 1000);
    assert.equal(await closed, SYNC_CLOSE.unauthorized);
  });

  test('4401: the session is revoked (POST /v1/runtime/sessions/revoke); another session stays', async () => {
    const tenant = await tenantWithRoom(s.t);
    const revoked = await syncSession(s.t, tenant.apiKey);
    const kept = await syncSession(s.t, tenant.apiKey);
    const p = s.open(`${tenant.roomId}/revoke`, revoked.token);
    const q = s.open(`${tenant.roomId}/revoke`, kept.token);
    await Promise.all([synced(p), synced(q)]);
    const closed = providerClose(p);
    await revokeSession(s.t, tenant.apiKey, revoked.sessionId);
    assert.equal(await closed, SYNC_CLOSE.unauthorized);
    q.doc.getText('t').insert(0, 'after');
    await eventually(
      'the other session to go on',
      async () => (await storedText(tenant, 'revoke')) === 'after',
    );
    assert.ok(q.wsconnected);
  });

  test('4403: the tenant switches the module off: open sockets close at the next check, new ones are refused', async () => {
    const tenant = await tenantWithRoom(s.t);
    const token = await syncToken(s.t, tenant.apiKey);
    const a = s.open(tenant.roomId, token);
    const b = s.open(`${tenant.roomId}/notes`, token);
    await Promise.all([synced(a), synced(b)]);
    // A tenant that keeps the module on is not touched by the same check.
    const other = await tenantWithRoom(s.t);
    const bystander = s.open(other.roomId, await syncToken(s.t, other.apiKey));
    await synced(bystander);
    const closed = [providerClose(a), providerClose(b)];
    await configureSync(s.t, tenant, { enabled: false });
    clock.advance(ACCESS_CHECK_MS);
    assert.deepEqual(await Promise.all(closed), [SYNC_CLOSE.forbidden, SYNC_CLOSE.forbidden]);
    assert.equal(await refusal(tenant.roomId, token), '403 module_disabled');
    bystander.doc.getText('t').insert(0, 'on');
    await eventually('the other tenant to go on', async () => (await storedText(other, 'default')) === 'on');
  });
});

describe('room deletion', () => {
  async function rows(tenantId: string, roomId: string): Promise<{ documents: number; updates: number }> {
    return systemTx(s.t.db, async (tx) => {
      const count = async (table: string) => {
        const { rows } = await tx.query<{ n: string }>(
          `select count(*)::text as n from ${table} where tenant_id = $1 and room_id = $2`,
          [tenantId, roomId],
        );
        return Number(rows[0]?.n ?? 0);
      };
      return { documents: await count('sync_documents'), updates: await count('sync_updates') };
    });
  }

  test('4404: deleting the room deletes its documents and closes their sockets; reconnecting is refused', async () => {
    const tenant = await createTestTenant(s.t);
    const roomId = await createRoom(s.t, tenant.apiKey);
    const keep = await createRoom(s.t, tenant.apiKey);
    const token = await syncToken(s.t, tenant.apiKey);
    const a = s.open(roomId, token);
    const b = s.open(roomId, token);
    const notes = s.open(`${roomId}/notes`, token);
    const elsewhere = s.open(keep, token);
    await Promise.all([synced(a), synced(b), synced(notes), synced(elsewhere)]);
    a.doc.getText('t').insert(0, 'doomed');
    notes.doc.getText('t').insert(0, 'doomed too');
    elsewhere.doc.getText('t').insert(0, 'kept');
    await eventually('b to receive the edit', () => b.doc.getText('t').toString() === 'doomed');
    await eventually('the edits to be stored', async () => {
      const [gone, kept] = [await rows(tenant.tenantId, roomId), await rows(tenant.tenantId, keep)];
      return gone.documents === 2 && gone.updates >= 2 && kept.updates >= 1;
    });

    const closed = [providerClose(a), providerClose(b), providerClose(notes)];
    await deleteRoom(s.t, tenant.apiKey, roomId);
    assert.deepEqual(await Promise.all(closed), [
      SYNC_CLOSE.roomDeleted,
      SYNC_CLOSE.roomDeleted,
      SYNC_CLOSE.roomDeleted,
    ]);
    assert.deepEqual(await rows(tenant.tenantId, roomId), { documents: 0, updates: 0 });
    assert.equal(await refusal(roomId, token), '404 not_found');
    // Another room of the tenant keeps its document and its connection.
    assert.equal((await rows(tenant.tenantId, keep)).documents, 1);
    assert.ok(elsewhere.wsconnected);
    // A room created again under the id starts with an empty document.
    const again = await call(s.t.app, {
      method: 'POST',
      url: '/v1/rooms',
      headers: { authorization: `Bearer ${tenant.apiKey}` },
      payload: { id: roomId },
    });
    assert.equal(again.statusCode, 201, again.body);
    const fresh = s.open(roomId, token);
    await synced(fresh);
    assert.equal(fresh.doc.getText('t').toString(), '');
  });
});
