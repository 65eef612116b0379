import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as Y from 'yjs';
import { redisUrl } from '../../../../test/realtime-gateway/support.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { ManualClock } from '../../../core/clock.ts';
import { systemTx } from '../../../core/db/tenant-tx.ts';
import { syncSuite } from './suites.ts';
import { synced } from './support.ts';

/**
 * With Redis, a message can be lost without any sign (an instance that committed an update and died before
 * publishing it): every open document is read again from the database every `resyncIntervalMs`. The
 * instance runs on a manual clock, so the re-read happens when the test moves it.
 */

const RESYNC_MS = 30_000;
const clock = new ManualClock(Date.now());
const s = syncSuite({
  enabled: redisUrl !== undefined,
  clock,
  limits: {
    resyncIntervalMs: RESYNC_MS,
    pingIntervalMs: 24 * 3600_000,
    accessCheckIntervalMs: 24 * 3600_000,
  },
});

test('an update committed but never published reaches the clients at the periodic re-read', {
  skip: redisUrl === undefined ? 'needs REDIS_URL (without Redis one instance holds each document)' : false,
}, async () => {
  const { t: instance, tenant } = s;
  const p = s.open(`${tenant.roomId}/lost`, await s.token());
  await synced(p);
  p.doc.getText('t').insert(0, 'seen;');
  const hub = instance.hub;
  await eventually('the edit to be applied on the server', async () => {
    const held = await hub.held({ tenantId: tenant.tenantId, roomId: tenant.roomId, docName: 'lost' });
    return held?.doc.getText('t').toString() === 'seen;';
  });

  // What another instance committed before it crashed, without publishing it: a row in the log only.
  const other = new Y.Doc();
  other.getMap('m').set('from', 'a crashed instance');
  await systemTx(instance.db, (tx) =>
    tx.query('insert into sync_updates (tenant_id, room_id, doc_name, data) values ($1, $2, $3, $4)', [
      tenant.tenantId,
      tenant.roomId,
      'lost',
      Y.encodeStateAsUpdate(other),
    ]),
  );
  const resyncsBefore = hub.stats.resyncs;
  // A round trip through the server: the lost update has not arrived by itself.
  p.doc.getText('t').insert(5, 'more;');
  await eventually('the second edit to be applied on the server', async () => {
    const held = await hub.held({ tenantId: tenant.tenantId, roomId: tenant.roomId, docName: 'lost' });
    return held?.doc.getText('t').toString() === 'seen;more;';
  });
  assert.equal(p.doc.getMap('m').get('from'), undefined);

  clock.advance(RESYNC_MS);
  await eventually(
    'the client to receive the update by the re-read',
    () => p.doc.getMap('m').get('from') === 'a crashed instance',
  );
  assert.ok(hub.stats.resyncs > resyncsBefore);
  assert.equal(p.doc.getText('t').toString(), 'seen;more;');
});
