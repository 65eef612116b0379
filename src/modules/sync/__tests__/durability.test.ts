import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as Y from 'yjs';
import { testConfig } from '../../../../test/helper.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { suiteFixture } from '../../../../test/support/suite.ts';
import { systemTx } from '../../../core/db/tenant-tx.ts';
import { openDatabase } from '../../../runtime.ts';
import { documentKey } from '../document-key.ts';
import { compactDocument, loadStoredDocument } from '../store.ts';
import { documentData, putUpdate } from './rest.ts';
import { Providers } from './suites.ts';
import {
  type SyncInstance,
  type SyncTenant,
  startSyncInstance,
  synced,
  syncToken,
  tenantWithRoom,
} from './support.ts';

/** Instances come and go on one database; the providers they served are destroyed at the end. */
const shared = suiteFixture(
  'database',
  async () => ({ db: await openDatabase(testConfig(), { inMemory: true }), providers: new Providers() }),
  async ({ db, providers }) => {
    providers.destroyAll();
    await db.close();
  },
);
const database = () => shared().db;
const open = (...args: Parameters<Providers['open']>) => shared().providers.open(...args);

async function storedRows(tenantId: string, roomId: string) {
  return systemTx(database(), async (tx) => {
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
    const first = await startSyncInstance({ db: database(), limits: { compactAfterUpdates: 1_000_000 } });
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
    const second = await startSyncInstance({ db: database() });
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
    const t = await startSyncInstance({
      db: database(),
      limits: { compactAfterUpdates: 10, compactDelayMs: 1 },
    });
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
      const list = async () => (await documentData(t, tenant)).list as number[];
      await eventually('the stored document to hold every item', async () => (await list()).length === 60);
      assert.deepEqual(await list(), b.doc.getArray('list').toJSON());
    } finally {
      await t.close();
    }
  });
});

/** Sends what each `edit` of `writer` changes to document `docName` over REST, as one update (200). */
function editsOver(t: SyncInstance, tenant: SyncTenant, docName: string, writer: Y.Doc) {
  return async (edit: () => void) => {
    const before = Y.encodeStateVector(writer);
    edit();
    const update = Buffer.from(Y.encodeStateAsUpdate(writer, before));
    const res = await putUpdate(t, tenant, `?docName=${docName}`, update);
    assert.equal(res.statusCode, 200, res.body);
  };
}

describe('compaction on a shared database', () => {
  test('a snapshot holds what the document holds: text typed and erased, values overwritten, leave no bytes behind', async () => {
    const t = await startSyncInstance({ db: database() });
    try {
      const tenant = await tenantWithRoom(t);
      const key = documentKey(tenant.tenantId, tenant.roomId, 'erased');
      const writer = new Y.Doc();
      const put = editsOver(t, tenant, 'erased', writer);
      const text = writer.getText('t');
      const page = 'x'.repeat(64 * 1024);
      for (let i = 0; i < 4; i++) {
        await put(() => text.insert(0, page));
        await put(() => text.delete(0, page.length));
      }
      await put(() => text.insert(0, 'kept'));
      for (let i = 0; i < 20; i++) await put(() => writer.getMap('m').set('k', `value ${i}`));

      assert.equal(await compactDocument(database(), key), 29);
      const { snapshot, log } = await storedRows(tenant.tenantId, tenant.roomId);
      assert.equal(log, 0);
      // 256 KiB were typed; the document holds 4 characters and one value.
      assert.ok(snapshot !== null && snapshot.byteLength < 1024, `snapshot of ${snapshot?.byteLength} bytes`);
      const stored = await loadStoredDocument(database(), key);
      assert.equal(stored.getText('t').toString(), 'kept');
      assert.equal(stored.getMap('m').get('k'), 'value 19');
      // A client that edits on from the state it had before the compaction is still understood.
      await put(() => text.insert(4, '!'));
      assert.equal((await loadStoredDocument(database(), key)).getText('t').toString(), 'kept!');
    } finally {
      await t.close();
    }
  });

  test('two compactions of one document at once, with appends between them, merge each log row once and lose nothing', async () => {
    const t = await startSyncInstance({ db: database() });
    try {
      const tenant = await tenantWithRoom(t);
      const key = documentKey(tenant.tenantId, tenant.roomId, 'race');
      const writer = new Y.Doc();
      const edit = editsOver(t, tenant, 'race', writer);
      const put = (i: number) => edit(() => writer.getMap('m').set(`k${i}`, i));
      for (let i = 0; i < 20; i++) await put(i);
      // As two instances would: each compacts in its own transaction, while a client keeps writing.
      const [one, two, , three] = await Promise.all([
        compactDocument(database(), key),
        compactDocument(database(), key),
        (async () => {
          for (let i = 20; i < 30; i++) await put(i);
        })(),
        compactDocument(database(), key),
      ]);
      const logLeft = await systemTx(database(), async (tx) => {
        const { rows } = await tx.query<{ n: string }>(
          'select count(*)::text as n from sync_updates where tenant_id = $1 and room_id = $2 and doc_name = $3',
          [key.tenantId, key.roomId, key.docName],
        );
        return Number(rows[0]?.n ?? 0);
      });
      assert.equal(one + two + three + logLeft, 30, 'every appended row merged once or still in the log');
      assert.ok(one + two + three >= 20, 'the rows written before the compactions were merged');
      const stored = await loadStoredDocument(database(), key);
      assert.deepEqual(stored.getMap('m').toJSON(), writer.getMap('m').toJSON());
      assert.equal(stored.getMap('m').size, 30);
    } finally {
      await t.close();
    }
  });
});
