import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as Y from 'yjs';
import { systemContext } from '../../../core/modules/hooks.ts';
import { documentKey } from '../document-key.ts';
import { appendUpdate, ensureDocument, loadStoredDocument } from '../store.ts';
import { createRoom, startSyncInstance, tenantWithRoom } from './support.ts';

function updateSetting(key: string, value: number): Uint8Array {
  const doc = new Y.Doc();
  doc.getMap('m').set(key, value);
  return Y.encodeStateAsUpdate(doc);
}

type SyncInstance = Awaited<ReturnType<typeof startSyncInstance>>;

/** A tenant with two rooms' default documents made, and an append of the tenant's updates. */
async function twoDocuments(t: SyncInstance) {
  const tenant = await tenantWithRoom(t);
  const otherRoom = await createRoom(t, tenant.apiKey);
  const ctx = systemContext({ ...t.app.services, log: t.app.log }, tenant.tenantId);
  const one = documentKey(tenant.tenantId, tenant.roomId, 'default');
  const two = documentKey(tenant.tenantId, otherRoom, 'default');
  await ensureDocument(t.db, one);
  await ensureDocument(t.db, two);
  const append = (key: typeof one, update: Uint8Array) =>
    appendUpdate({ ctx, key, update, eventThrottleMs: 60_000 });
  return { tenant, otherRoom, one, two, append };
}

describe('appends are group-committed', () => {
  test("a tenant's appends written together keep their order per document; a document whose row is gone fails alone", async () => {
    const t = await startSyncInstance();
    try {
      const { tenant, otherRoom, one, two, append } = await twoDocuments(t);
      // No row for this one: its log rows are refused (as when its room was deleted meanwhile).
      const gone = documentKey(tenant.tenantId, otherRoom, 'never-opened');
      // The first is written at once; the others wait for it and are written as one group.
      const settled = await Promise.allSettled([
        append(one, updateSetting('a', 1)),
        append(one, updateSetting('b', 2)),
        append(gone, updateSetting('c', 3)),
        append(two, updateSetting('d', 4)),
        append(one, updateSetting('e', 5)),
      ]);
      assert.deepEqual(
        settled.map((s) => s.status),
        ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
      );
      const [, second, , fourth, fifth] = settled;
      if (second?.status !== 'fulfilled' || fourth?.status !== 'fulfilled' || fifth?.status !== 'fulfilled') {
        throw new Error('unreachable');
      }
      // Written alone after the group failed, each is its own group; its document's share is what it sent.
      assert.deepEqual(
        fifth.value.items.map((item) => item.key.roomId),
        [tenant.roomId],
        'a group holds one document only',
      );
      assert.deepEqual(
        fourth.value.items.map((item) => item.key.roomId),
        [otherRoom],
      );
      const stored = await loadStoredDocument(t.db, one);
      assert.deepEqual(stored.getMap('m').toJSON(), { a: 1, b: 2, e: 5 });
      const other = await loadStoredDocument(t.db, two);
      assert.deepEqual(other.getMap('m').toJSON(), { d: 4 });
      const unwritten = await loadStoredDocument(t.db, gone);
      assert.equal(unwritten.getMap('m').size, 0);
    } finally {
      await t.close();
    }
  });

  test('appends written in one group resolve with their document’s share, in arrival order', async () => {
    const t = await startSyncInstance();
    try {
      const { one, two, append } = await twoDocuments(t);
      const updates = [1, 2, 3, 4, 5].map((i) => updateSetting(`k${i}`, i));
      const [first, ...rest] = await Promise.all([
        append(one, updates[0] as Uint8Array),
        ...updates.slice(1).map((update, i) => append(i % 2 === 0 ? one : two, update)),
      ]);
      assert.deepEqual(
        first?.items.map((item) => item.update),
        [updates[0]],
      );
      const [a, b, c, d] = rest;
      assert.equal(a, c, 'one object for the document’s share of the group');
      assert.equal(b, d);
      assert.deepEqual(
        a?.items.map((item) => item.update),
        [updates[1], updates[3]],
      );
      assert.deepEqual(
        b?.items.map((item) => item.update),
        [updates[2], updates[4]],
      );
      const groups = t.app.services.groupCommit.written('sync.append');
      assert.deepEqual(groups, { groups: 2, items: 5 });
    } finally {
      await t.close();
    }
  });
});
