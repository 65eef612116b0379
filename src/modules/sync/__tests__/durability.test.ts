import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { testConfig } from '../../../../test/helper.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import type { Database } from '../../../core/db/database.ts';
import { systemTx } from '../../../core/db/tenant-tx.ts';
import { openDatabase } from '../../../runtime.ts';
import { documentKey } from '../document-key.ts';
import { compactDocument, loadStoredDocument } from '../store.ts';
import {
  provider,
  type SyncInstance,
  type SyncTenant,
  startSyncInstance,
  synced,
  syncToken,
  tenantWithRoom,
} from './support.ts';

let db: Database;
const providers: WebsocketProvider[] = [];
function open(t: SyncInstance, room: string, token: string): WebsocketProvider {
  const p = provider(t, room, token);
  providers.push(p);
  return p;
}

before(async () => {
  db = await openDatabase(testConfig(), { inMemory: true });
});
after(async () => {
  for (const p of providers) {
    p.destroy();
    p.doc.destroy();
  }
  await db.close();
});

async function storedRows(tenantId: string, roomId: string) {
  return systemTx(db, async (tx) => {
    const log = await tx.query<{ n: string }>(
      'select count(*)::text as n from sync_updates where tenant_id = $1 and room_id = $2',
      [tenantId, roomId],
    );
    const doc = await tx.query<{ snapshot: Uint8Array | null }>(
      'select snapshot from sync_documents where tenant_id = $1 and room_id = $2',
      [tenantId, roomId],
    );
    return { log: Number(log.rows[0]?.n ?? 0), snapshot: doc.rows[0]?.snapshot ?? null };
  });
}

describe('durability', () => {
  test('a document outlives its instance: unloaded after the last client, compacted, loaded again after a restart', async () => {
    const first = await startSyncInstance({ db, limits: { compactAfterUpdates: 1_000_000 } });
    let tenant: SyncTenant;
    let token: string;
    try {
      tenant = await tenantWithRoom(first);
      token = await syncToken(first, tenant.apiKey);
      const a = open(first, tenant.roomId, token);
      const b = open(first, tenant.roomId, token);
      await Promise.all([synced(a), synced(b)]);
      for (let i = 0; i < 30; i++) a.doc.getText('t').insert(a.doc.getText('t').length, `${i},`);
      b.doc.getMap('m').set('answer', 42);
      await eventually(
        'both to converge',
        () =>
          a.doc.getMap('m').get('answer') === 42 && b.doc.getText('t').length === a.doc.getText('t').length,
      );
      const before = await storedRows(tenant.tenantId, tenant.roomId);
      assert.ok(before.log >= 31, `every update is in the log (${before.log})`);
      a.destroy();
      b.destroy();
      // The last client gone: the document is flushed, compacted into its snapshot and dropped.
      await eventually('the document to be unloaded', async () => {
        const rows = await storedRows(tenant.tenantId, tenant.roomId);
        return rows.log === 0 && rows.snapshot !== null;
      });
    } finally {
      await first.close();
    }
    const second = await startSyncInstance({ db });
    try {
      const c = open(second, tenant.roomId, token);
      await synced(c);
      const expected = Array.from({ length: 30 }, (_, i) => `${i},`).join('');
      await eventually(
        'the restarted instance to serve everything',
        () => c.doc.getText('t').toString() === expected,
      );
      assert.equal(c.doc.getMap('m').get('answer'), 42);
    } finally {
      await second.close();
    }
  });

  test('compaction merges the log while clients edit, and loses nothing', async () => {
    const t = await startSyncInstance({ db, limits: { compactAfterUpdates: 10, compactDelayMs: 1 } });
    try {
      const tenant = await tenantWithRoom(t);
      const token = await syncToken(t, tenant.apiKey);
      const a = open(t, tenant.roomId, token);
      const b = open(t, tenant.roomId, token);
      await Promise.all([synced(a), synced(b)]);
      for (let round = 0; round < 5; round++) {
        for (let i = 0; i < 12; i++) a.doc.getArray<number>('list').push([round * 100 + i]);
        await eventually('b to catch up', () => b.doc.getArray('list').length === (round + 1) * 12);
      }
      await eventually(
        'a compaction to have run',
        async () => (await storedRows(tenant.tenantId, tenant.roomId)).snapshot !== null,
      );
      const stored = await t.app.inject({
        method: 'GET',
        url: `/v1/rooms/${tenant.roomId}/ydoc`,
        headers: { authorization: `Bearer ${tenant.apiKey}` },
      });
      await eventually('the stored document to hold every item', async () => {
        const res = await t.app.inject({
          method: 'GET',
          url: `/v1/rooms/${tenant.roomId}/ydoc`,
          headers: { authorization: `Bearer ${tenant.apiKey}` },
        });
        return res.json<{ data: { list: number[] } }>().data.list.length === 60;
      });
      assert.equal(stored.statusCode, 200);
      assert.deepEqual(
        (
          await t.app.inject({
            method: 'GET',
            url: `/v1/rooms/${tenant.roomId}/ydoc`,
            headers: { authorization: `Bearer ${tenant.apiKey}` },
          })
        ).json<{ data: { list: number[] } }>().data.list,
        b.doc.getArray('list').toJSON(),
      );
    } finally {
      await t.close();
    }
  });
});

describe('compaction on a shared database', () => {
  test('two compactions of one document at once, with appends between them, merge each log row once and lose nothing', async () => {
    const t = await startSyncInstance({ db });
    try {
      const tenant = await tenantWithRoom(t);
      const key = documentKey(tenant.tenantId, tenant.roomId, 'race');
      const writer = new Y.Doc();
      const put = async (i: number) => {
        const before = Y.encodeStateVector(writer);
        writer.getMap('m').set(`k${i}`, i);
        const res = await t.app.inject({
          method: 'PUT',
          url: `/v1/rooms/${tenant.roomId}/ydoc-binary?docName=race`,
          headers: {
            authorization: `Bearer ${tenant.apiKey}`,
            'content-type': 'application/octet-stream',
          },
          payload: Buffer.from(Y.encodeStateAsUpdate(writer, before)),
        });
        assert.equal(res.statusCode, 200, res.body);
      };
      for (let i = 0; i < 20; i++) await put(i);
      // As two instances would: each compacts in its own transaction, while a client keeps writing.
      const [one, two, , three] = await Promise.all([
        compactDocument(db, key),
        compactDocument(db, key),
        (async () => {
          for (let i = 20; i < 30; i++) await put(i);
        })(),
        compactDocument(db, key),
      ]);
      const logLeft = await systemTx(db, async (tx) => {
        const { rows } = await tx.query<{ n: string }>(
          'select count(*)::text as n from sync_updates where tenant_id = $1 and room_id = $2 and doc_name = $3',
          [key.tenantId, key.roomId, key.docName],
        );
        return Number(rows[0]?.n ?? 0);
      });
      assert.equal(one + two + three + logLeft, 30, 'every appended row merged once or still in the log');
      assert.ok(one + two + three >= 20, 'the rows written before the compactions were merged');
      const stored = await loadStoredDocument(db, key);
      assert.deepEqual(stored.getMap('m').toJSON(), writer.getMap('m').toJSON());
      assert.equal(stored.getMap('m').size, 30);
    } finally {
      await t.close();
    }
  });
});

function anUpdate(): Buffer {
  const doc = new Y.Doc();
  doc.getText('t').insert(0, 'x');
  return Buffer.from(Y.encodeStateAsUpdate(doc));
}

describe('REST', () => {
  let t: SyncInstance;
  let tenant: SyncTenant;
  const auth = () => ({ authorization: `Bearer ${tenant.apiKey}` });
  before(async () => {
    t = await startSyncInstance({ db });
    tenant = await tenantWithRoom(t);
  });
  after(() => t.close());

  test('reads equal what clients see; a PUT reaches live clients; a malformed PUT is a 422 that changes nothing', async () => {
    const token = await syncToken(t, tenant.apiKey);
    const a = open(t, `${tenant.roomId}/rest`, token);
    await synced(a);
    a.doc.getText('title').insert(0, 'Hello');
    a.doc.getMap('meta').set('n', 1);
    a.doc.getArray('items').push(['x', 'y']);
    a.doc.getXmlFragment('prose').insert(0, [new Y.XmlElement('p')]);
    const json = async () =>
      (
        await t.app.inject({
          method: 'GET',
          url: `/v1/rooms/${tenant.roomId}/ydoc?docName=rest`,
          headers: auth(),
        })
      ).json<{
        data: Record<string, unknown>;
      }>().data;
    await eventually(
      'the stored document to hold the edits',
      async () => (await json()).title === 'Hello' && (await json()).prose !== undefined,
    );
    assert.deepEqual(await json(), { items: ['x', 'y'], meta: { n: 1 }, prose: '<p></p>', title: 'Hello' });

    const binary = await t.app.inject({
      method: 'GET',
      url: `/v1/rooms/${tenant.roomId}/ydoc-binary?docName=rest`,
      headers: auth(),
    });
    assert.equal(binary.statusCode, 200);
    assert.equal(binary.headers['content-type'], 'application/octet-stream');
    const copy = new Y.Doc();
    Y.applyUpdate(copy, binary.rawPayload);
    assert.equal(copy.getText('title').toString(), 'Hello');
    const diff = await t.app.inject({
      method: 'GET',
      url: `/v1/rooms/${tenant.roomId}/ydoc-binary?docName=rest&stateVector=${encodeURIComponent(Buffer.from(Y.encodeStateVector(copy)).toString('base64'))}`,
      headers: auth(),
    });
    assert.ok(
      diff.rawPayload.length < binary.rawPayload.length,
      'a state vector that has everything gets an empty diff',
    );

    const writer = new Y.Doc();
    Y.applyUpdate(writer, binary.rawPayload);
    const before = Y.encodeStateVector(writer);
    writer.getText('title').insert(5, ', world');
    const put = await t.app.inject({
      method: 'PUT',
      url: `/v1/rooms/${tenant.roomId}/ydoc-binary?docName=rest`,
      headers: { ...auth(), 'content-type': 'application/octet-stream' },
      payload: Buffer.from(Y.encodeStateAsUpdate(writer, before)),
    });
    assert.equal(put.statusCode, 200, put.body);
    await eventually(
      'the live client to receive the PUT',
      () => a.doc.getText('title').toString() === 'Hello, world',
    );

    const bad = await t.app.inject({
      method: 'PUT',
      url: `/v1/rooms/${tenant.roomId}/ydoc-binary?docName=rest`,
      headers: { ...auth(), 'content-type': 'application/octet-stream' },
      payload: Buffer.from([1, 2, 3, 4, 5, 250, 251]),
    });
    assert.equal(bad.statusCode, 422, bad.body);
    assert.equal(bad.json<{ error: string }>().error, 'unprocessable_content');
    assert.equal((await json()).title, 'Hello, world');
  });

  test('errors: unknown room 404, bad state vector 400, JSON body 415', async () => {
    const missing = await t.app.inject({
      method: 'GET',
      url: '/v1/rooms/no-such-room/ydoc',
      headers: auth(),
    });
    assert.equal(missing.statusCode, 404);
    const badVector = await t.app.inject({
      method: 'GET',
      url: `/v1/rooms/${tenant.roomId}/ydoc-binary?stateVector=%2F%2F%2F%2F%2Fw%3D%3D`,
      headers: auth(),
    });
    assert.equal(badVector.statusCode, 400, badVector.body);
    const json = await t.app.inject({
      method: 'PUT',
      url: `/v1/rooms/${tenant.roomId}/ydoc-binary`,
      headers: auth(),
      payload: { update: 'x' },
    });
    assert.equal(json.statusCode, 415, json.body);
    // The body is the verb's to check, but the query is still validated by the route's schema.
    const badName = await t.app.inject({
      method: 'PUT',
      url: `/v1/rooms/${tenant.roomId}/ydoc-binary?docName=${encodeURIComponent('no spaces')}`,
      headers: { ...auth(), 'content-type': 'application/octet-stream' },
      payload: anUpdate(),
    });
    assert.equal(badName.statusCode, 400, badName.body);
  });

  test('actions: get_document and apply_document_update', async () => {
    const writer = new Y.Doc();
    writer.getMap('m').set('by', 'agent');
    const applied = await t.app.inject({
      method: 'POST',
      url: '/v1/actions/apply_document_update',
      headers: auth(),
      payload: {
        arguments: {
          roomId: tenant.roomId,
          docName: 'agent',
          update: Buffer.from(Y.encodeStateAsUpdate(writer)).toString('base64'),
        },
      },
    });
    assert.equal(applied.statusCode, 200, applied.body);
    const read = await t.app.inject({
      method: 'POST',
      url: '/v1/actions/get_document',
      headers: auth(),
      payload: { arguments: { roomId: tenant.roomId, docName: 'agent' } },
    });
    assert.deepEqual(read.json<{ result: { data: unknown } }>().result.data, { m: { by: 'agent' } });
  });

  test('sync.document.updated: one event per document per throttle window', async () => {
    const token = await syncToken(t, tenant.apiKey);
    const a = open(t, `${tenant.roomId}/events`, token);
    await synced(a);
    for (let i = 0; i < 20; i++) a.doc.getText('t').insert(0, 'x');
    await eventually('the edits to be stored', async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/v1/rooms/${tenant.roomId}/ydoc?docName=events`,
        headers: auth(),
      });
      return res.json<{ data: { t?: string } }>().data.t?.length === 20;
    });
    const events = await t.app.inject({
      method: 'GET',
      url: '/v1/events?type=sync.document.updated',
      headers: auth(),
    });
    const ofDoc = events
      .json<{ data: { data: { docName: string; roomId: string } }[] }>()
      .data.filter((e) => e.data.docName === 'events' && e.data.roomId === tenant.roomId);
    assert.equal(ofDoc.length, 1, 'twenty edits within the default 5 s window make one event');
  });
});
