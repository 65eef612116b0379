import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { call } from '../../../../test/helper.ts';
import { ManualClock } from '../../../core/clock.ts';
import { SYNC_CLOSE } from '../limits.ts';
import {
  configureSync,
  provider,
  providerClose,
  type SyncInstance,
  type SyncTenant,
  startSyncInstance,
  synced,
  syncToken,
  tenantWithRoom,
  tryUpgrade,
} from './support.ts';

/**
 * The event's throttle on the app clock, the REST size limit, the open-documents limit of an instance
 * (one here) and what its clients see when it shuts down. Pings and access checks are a day apart.
 */

let clock: ManualClock;
let t: SyncInstance;
let closed = false;
const providers: WebsocketProvider[] = [];

before(async () => {
  clock = new ManualClock(Date.now());
  t = await startSyncInstance({
    clock,
    limits: { maxOpenDocuments: 1, pingIntervalMs: 24 * 3600_000, accessCheckIntervalMs: 24 * 3600_000 },
  });
});
after(async () => {
  for (const p of providers) {
    p.destroy();
    p.doc.destroy();
  }
  if (!closed) await t.close();
});

function anUpdate(text: string): Buffer {
  const doc = new Y.Doc();
  doc.getText('t').insert(0, text);
  return Buffer.from(Y.encodeStateAsUpdate(doc));
}

async function put(tenant: SyncTenant, docName: string, body: Buffer) {
  return call(t.app, {
    method: 'PUT',
    url: `/v1/rooms/${tenant.roomId}/ydoc-binary?docName=${docName}`,
    headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/octet-stream' },
    payload: body,
  });
}

async function documentEvents(tenant: SyncTenant) {
  const res = await call(t.app, {
    method: 'GET',
    url: '/v1/events?type=sync.document.updated',
    headers: { authorization: `Bearer ${tenant.apiKey}` },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res
    .json<{ data: { type: string; data: { roomId: string; docName: string; updatedAt: string } }[] }>()
    .data.map((e) => e.data)
    .filter((d) => d.roomId === tenant.roomId);
}

describe('sync.document.updated', () => {
  test('at most one per document per syncEventThrottleSeconds (default 5 s) of the app clock', async () => {
    const tenant = await tenantWithRoom(t);
    const start = clock.now();
    for (const text of ['a', 'b', 'c'])
      assert.equal((await put(tenant, 'ev', anUpdate(text))).statusCode, 200);
    // Another document of the room has a window of its own.
    assert.equal((await put(tenant, 'other', anUpdate('x'))).statusCode, 200);
    assert.deepEqual(
      (await documentEvents(tenant)).map((d) => d.docName).sort(),
      ['ev', 'other'],
      'three writes in one window make one event',
    );
    clock.advance(4_999);
    assert.equal((await put(tenant, 'ev', anUpdate('d'))).statusCode, 200);
    assert.equal((await documentEvents(tenant)).filter((d) => d.docName === 'ev').length, 1);
    clock.advance(1);
    assert.equal((await put(tenant, 'ev', anUpdate('e'))).statusCode, 200);
    const ev = (await documentEvents(tenant)).filter((d) => d.docName === 'ev');
    assert.equal(ev.length, 2, 'the window has passed: a second event');
    assert.deepEqual(ev.map((d) => Date.parse(d.updatedAt)).sort(), [start, start + 5_000]);
  });

  test('the tenant sets the window (syncEventThrottleSeconds)', async () => {
    const tenant = await tenantWithRoom(t);
    await configureSync(t, tenant, { enabled: true, config: { syncEventThrottleSeconds: 60 } });
    assert.equal((await put(tenant, 'ev', anUpdate('a'))).statusCode, 200);
    clock.advance(30_000);
    assert.equal((await put(tenant, 'ev', anUpdate('b'))).statusCode, 200);
    assert.equal((await documentEvents(tenant)).length, 1);
    clock.advance(30_000);
    assert.equal((await put(tenant, 'ev', anUpdate('c'))).statusCode, 200);
    assert.equal((await documentEvents(tenant)).length, 2);
  });
});

test('PUT past maxDocumentBytes: 413 payload_too_large, the document unchanged', async () => {
  const tenant = await tenantWithRoom(t);
  await configureSync(t, tenant, { enabled: true, config: { maxDocumentBytes: 1024 } });
  assert.equal((await put(tenant, 'big', anUpdate('small'))).statusCode, 200);
  const res = await put(tenant, 'big', anUpdate('x'.repeat(2000)));
  assert.equal(res.statusCode, 413, res.body);
  assert.equal(res.json<{ error: string }>().error, 'payload_too_large');
  assert.match(res.json<{ message: string }>().message, /maxDocumentBytes/);
  const doc = await call(t.app, {
    method: 'GET',
    url: `/v1/rooms/${tenant.roomId}/ydoc?docName=big`,
    headers: { authorization: `Bearer ${tenant.apiKey}` },
  });
  assert.deepEqual(doc.json<{ data: unknown }>().data, { t: 'small' });
});

describe('the instance', () => {
  test('maxOpenDocuments: one more document is refused before the upgrade (503); an open one still admits', async () => {
    const tenant = await tenantWithRoom(t);
    const token = await syncToken(t, tenant.apiKey);
    const first = provider(t, `${tenant.roomId}/one`, token);
    providers.push(first);
    await synced(first);
    const refused = await tryUpgrade(`${t.syncUrl}/${tenant.roomId}/two?token=${encodeURIComponent(token)}`);
    assert.ok('status' in refused, 'the upgrade to a second document was accepted');
    assert.equal(refused.status, 503);
    assert.equal((JSON.parse(refused.body) as { error: string }).error, 'service_unavailable');
    // The document already open takes more connections.
    const second = provider(t, `${tenant.roomId}/one`, token);
    providers.push(second);
    await synced(second);
  });

  test('1012 at shutdown: every client is told to reconnect (the stock provider keeps trying)', async () => {
    const open = providers.filter((p) => p.wsconnected);
    assert.ok(open.length >= 2);
    const codes = open.map((p) => providerClose(p));
    closed = true;
    await t.close();
    assert.deepEqual(
      await Promise.all(codes),
      open.map(() => SYNC_CLOSE.restart),
    );
    // 1012 is not one of the codes that stop the provider: it is still meant to reconnect.
    for (const p of open) assert.equal(p.shouldConnect, true);
  });
});
