import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { redisUrl } from '../../../../test/realtime-gateway/support.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { documentChannel, documentKey } from '../document-key.ts';
import { SYNC_CLOSE } from '../limits.ts';
import { deleteRoom } from './rest.ts';
import { twoInstancesSuite } from './suites.ts';
import { createRoom, providerClose, type SyncTenant, synced, syncToken, tenantWithRoom } from './support.ts';

/**
 * Two app instances on one database (each its own pool with DATABASE_URL) and one backplane (Redis with
 * REDIS_URL, else the in-memory broker): clients of one document on both converge, awareness crosses, and
 * after the Redis connection of one instance drops, what it missed arrives from the database. A room
 * deleted through one instance closes the document's sockets on both.
 */

describe('sync on two instances', () => {
  /** No periodic re-read during the test: only a gap in the backplane's delivery starts one. */
  const s = twoInstancesSuite({ resyncIntervalMs: 24 * 3600_000 });
  let tenant: SyncTenant;
  before(async () => {
    tenant = await tenantWithRoom(s.a);
  });

  test('clients on both instances edit one Y.Text at once and converge; awareness crosses', async () => {
    const token = await syncToken(s.a, tenant.apiKey);
    const onA = s.open(s.a, tenant.roomId, token);
    const onB = s.open(s.b, tenant.roomId, token);
    await Promise.all([synced(onA), synced(onB)]);
    for (let i = 0; i < 25; i++) {
      onA.doc.getText('t').insert(0, `a${i};`);
      onB.doc.getText('t').insert(onB.doc.getText('t').length, `b${i};`);
    }
    // Every insert of both clients: `a0;`..`a24;` and `b0;`..`b24;`.
    const expectedLength =
      2 * Array.from({ length: 25 }, (_, i) => `a${i};`.length).reduce((x, y) => x + y, 0);
    await eventually(
      'both copies to converge',
      () =>
        onA.doc.getText('t').toString() === onB.doc.getText('t').toString() &&
        onA.doc.getText('t').length === expectedLength,
    );
    onA.awareness.setLocalStateField('user', { name: 'on A' });
    await eventually(
      'B to see A’s awareness',
      () => onB.awareness.getStates().get(onA.doc.clientID) !== undefined,
    );
    onA.destroy();
    await eventually('B to see A leave', () => !onB.awareness.getStates().has(onA.doc.clientID));
  });

  test('an update published while B’s Redis link is down reaches B’s clients by the re-read from the database', {
    skip: redisUrl === undefined ? 'needs REDIS_URL' : false,
  }, async () => {
    const token = await syncToken(s.a, tenant.apiKey);
    const room = `${tenant.roomId}/drop`;
    const onA = s.open(s.a, room, token);
    const onB = s.open(s.b, room, token);
    await Promise.all([synced(onA), synced(onB)]);
    onA.doc.getText('t').insert(0, 'before;');
    await eventually('B to have it', () => onB.doc.getText('t').toString() === 'before;');

    const hubB = s.b.hub;
    // B's subscriber connection (private to the backplane; reached into here to cut it at a known moment).
    const subscriberOfB = (s.b.backplane.pubsub as unknown as { subscriber: Redis }).subscriber;
    // A listener of our own on the document's channel: it sees each message when Redis sends it to B too.
    const listener = new Redis(redisUrl ?? '');
    const seen: { from?: string; kind?: string }[] = [];
    try {
      const channel = documentChannel(documentKey(tenant.tenantId, tenant.roomId, 'drop'));
      listener.on('pmessage', (_pattern: string, wire: string, payload: string) => {
        if (wire.endsWith(channel)) seen.push(JSON.parse(payload) as { from?: string; kind?: string });
      });
      await listener.psubscribe(`*${channel}`);
      const resyncsBefore = hubB.stats.resyncs;

      // B stops reading its subscriber connection; the update A publishes now is sent to it by Redis and
      // waits, unread, in that socket, which is then cut: the message is lost to B for certain.
      subscriberOfB.stream.pause();
      onA.doc.getText('t').insert(7, 'during;');
      await eventually('Redis to have sent A’s update (to B as well)', () =>
        seen.some((m) => m.kind === 'update' && m.from === s.a.backplane.instanceId),
      );
      assert.equal(onB.doc.getText('t').toString(), 'before;', 'B has not received it');
      assert.equal(hubB.stats.resyncs, resyncsBefore);
      subscriberOfB.stream.destroy();

      // ioredis reconnects, the backplane subscribes again and announces the gap: B reads its open
      // documents again from the database (the periodic re-read is a day away in this file).
      await eventually(
        'B’s client to converge with A’s',
        () =>
          onB.doc.getText('t').toString() === 'before;during;' &&
          onA.doc.getText('t').toString() === 'before;during;',
        { timeoutMs: 30_000 },
      );
      assert.ok(hubB.stats.resyncs > resyncsBefore, 'B re-read its documents from the database');
      // And the link carries updates again.
      onA.doc.getText('t').insert(0, 'after;');
      await eventually(
        'B to receive updates by Redis again',
        () => onB.doc.getText('t').toString() === 'after;before;during;',
      );
    } finally {
      listener.disconnect();
    }
  });

  test('a room deleted through A closes its document’s sockets on B too (4404)', async () => {
    const roomId = await createRoom(s.a, tenant.apiKey);
    const token = await syncToken(s.a, tenant.apiKey);
    const onA = s.open(s.a, roomId, token);
    const onB = s.open(s.b, roomId, token);
    await Promise.all([synced(onA), synced(onB)]);
    onB.doc.getText('t').insert(0, 'x');
    await eventually('A to have it', () => onA.doc.getText('t').toString() === 'x');
    const closed = [providerClose(onA), providerClose(onB)];
    await deleteRoom(s.a, tenant.apiKey, roomId);
    assert.deepEqual(await Promise.all(closed), [SYNC_CLOSE.roomDeleted, SYNC_CLOSE.roomDeleted]);
  });
});
