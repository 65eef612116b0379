import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualClock } from '../../../core/clock.ts';
import { SYNC_CLOSE } from '../limits.ts';
import { documentData, documentEvents, putUpdate, textUpdate } from './rest.ts';
import { syncSuite } from './suites.ts';
import {
  configureSync,
  providerClose,
  type SyncTenant,
  socketUrl,
  synced,
  syncToken,
  tenantWithRoom,
  tryUpgrade,
} from './support.ts';

/**
 * The event's throttle on the app clock, the REST size limit, the open-documents limit of an instance
 * (one here) and what its clients see when it shuts down. Pings and access checks are a day apart.
 */

const clock = new ManualClock(Date.now());
const s = syncSuite({
  tenants: 0,
  clock,
  limits: { maxOpenDocuments: 1, pingIntervalMs: 24 * 3600_000, accessCheckIntervalMs: 24 * 3600_000 },
});

const put = (tenant: SyncTenant, docName: string, body: Buffer) =>
  putUpdate(s.t, tenant, `?docName=${docName}`, body);

describe('sync.document.updated', () => {
  test('at most one per document per syncEventThrottleSeconds (default 5 s) of the app clock', async () => {
    const tenant = await tenantWithRoom(s.t);
    const start = clock.now();
    for (const text of ['a', 'b', 'c'])
      assert.equal((await put(tenant, 'ev', textUpdate(text))).statusCode, 200);
    // Another document of the room has a window of its own.
    assert.equal((await put(tenant, 'other', textUpdate('x'))).statusCode, 200);
    assert.deepEqual(
      (await documentEvents(s.t, tenant)).map((d) => d.docName).sort(),
      ['ev', 'other'],
      'three writes in one window make one event',
    );
    clock.advance(4_999);
    assert.equal((await put(tenant, 'ev', textUpdate('d'))).statusCode, 200);
    assert.equal((await documentEvents(s.t, tenant)).filter((d) => d.docName === 'ev').length, 1);
    clock.advance(1);
    assert.equal((await put(tenant, 'ev', textUpdate('e'))).statusCode, 200);
    const ev = (await documentEvents(s.t, tenant)).filter((d) => d.docName === 'ev');
    assert.equal(ev.length, 2, 'the window has passed: a second event');
    assert.deepEqual(ev.map((d) => Date.parse(d.updatedAt)).sort(), [start, start + 5_000]);
  });

  test('the tenant sets the window (syncEventThrottleSeconds)', async () => {
    const tenant = await tenantWithRoom(s.t);
    await configureSync(s.t, tenant, { enabled: true, config: { syncEventThrottleSeconds: 60 } });
    assert.equal((await put(tenant, 'ev', textUpdate('a'))).statusCode, 200);
    clock.advance(30_000);
    assert.equal((await put(tenant, 'ev', textUpdate('b'))).statusCode, 200);
    assert.equal((await documentEvents(s.t, tenant)).length, 1);
    clock.advance(30_000);
    assert.equal((await put(tenant, 'ev', textUpdate('c'))).statusCode, 200);
    assert.equal((await documentEvents(s.t, tenant)).length, 2);
  });
});

test('PUT past maxDocumentBytes: 413 payload_too_large, the document unchanged', async () => {
  const tenant = await tenantWithRoom(s.t);
  await configureSync(s.t, tenant, { enabled: true, config: { maxDocumentBytes: 1024 } });
  assert.equal((await put(tenant, 'big', textUpdate('small'))).statusCode, 200);
  const res = await put(tenant, 'big', textUpdate('x'.repeat(2000)));
  assert.equal(res.statusCode, 413, res.body);
  assert.equal(res.json<{ error: string }>().error, 'payload_too_large');
  assert.match(res.json<{ message: string }>().message, /maxDocumentBytes/);
  assert.deepEqual(await documentData(s.t, tenant, 'big'), { t: 'small' });
});

describe('the instance', () => {
  test('maxOpenDocuments: one more document is refused before the upgrade (503); an open one still admits', async () => {
    const tenant = await tenantWithRoom(s.t);
    const token = await syncToken(s.t, tenant.apiKey);
    const first = s.open(`${tenant.roomId}/one`, token);
    await synced(first);
    const refused = await tryUpgrade(socketUrl(s.t, `${tenant.roomId}/two`, token));
    assert.ok('status' in refused, 'the upgrade to a second document was accepted');
    assert.equal(refused.status, 503);
    assert.equal((JSON.parse(refused.body) as { error: string }).error, 'service_unavailable');
    // The document already open takes more connections.
    const second = s.open(`${tenant.roomId}/one`, token);
    await synced(second);
  });

  test('1012 at shutdown: every client is told to reconnect (the stock provider keeps trying)', async () => {
    const open = s.providers.connected();
    assert.ok(open.length >= 2);
    const codes = open.map((p) => providerClose(p));
    await s.shutdown();
    assert.deepEqual(
      await Promise.all(codes),
      open.map(() => SYNC_CLOSE.restart),
    );
    // 1012 is not one of the codes that stop the provider: it is still meant to reconnect.
    for (const p of open) assert.equal(p.shouldConnect, true);
  });
});
