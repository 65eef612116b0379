import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import type { WebsocketProvider } from 'y-websocket';
import { testConfig } from '../../../../test/helper.ts';
import { type Deployment, deployment, redisUrl } from '../../../../test/realtime-gateway/support.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import type { Database } from '../../../core/db/database.ts';
import { openDatabase } from '../../../runtime.ts';
import {
  provider,
  type SyncInstance,
  type SyncTenant,
  startSyncInstance,
  synced,
  syncToken,
  tenantWithRoom,
} from './support.ts';

/**
 * Two app instances on one database (each its own pool with DATABASE_URL) and one backplane (Redis with
 * REDIS_URL, else the in-memory broker): clients of one document on both converge, awareness crosses, and
 * after the Redis connection of one instance drops, what it missed arrives from the database.
 */

let shared: Deployment;
let a: SyncInstance;
let b: SyncInstance;
let ownDb: Database | undefined;
let tenant: SyncTenant;
const providers: WebsocketProvider[] = [];
function open(t: SyncInstance, room: string, token: string): WebsocketProvider {
  const p = provider(t, room, token);
  providers.push(p);
  return p;
}

before(async () => {
  shared = deployment();
  a = await startSyncInstance({ deployment: shared });
  const config = testConfig();
  if (config.databaseUrl !== undefined) ownDb = await openDatabase(config);
  b = await startSyncInstance({ deployment: shared, db: ownDb ?? a.db });
  tenant = await tenantWithRoom(a);
});
after(async () => {
  for (const p of providers) {
    p.destroy();
    p.doc.destroy();
  }
  await Promise.all([b.close(), a.close()]);
  await ownDb?.close();
  await shared.cleanup();
});

describe('sync on two instances', () => {
  test('clients on both instances edit one Y.Text at once and converge; awareness crosses', async () => {
    const token = await syncToken(a, tenant.apiKey);
    const onA = open(a, tenant.roomId, token);
    const onB = open(b, tenant.roomId, token);
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

  test('after the Redis connection of one instance drops and comes back, its clients get what they missed', {
    skip: redisUrl === undefined ? 'needs REDIS_URL' : false,
  }, async () => {
    const token = await syncToken(a, tenant.apiKey);
    const room = `${tenant.roomId}/drop`;
    const onA = open(a, room, token);
    const onB = open(b, room, token);
    await Promise.all([synced(onA), synced(onB)]);
    onB.doc.getText('t').insert(0, 'before;');
    await eventually('A to have it', () => onA.doc.getText('t').toString() === 'before;');
    const admin = new Redis(redisUrl ?? '');
    try {
      const clients = String(await admin.client('LIST'));
      const id = new RegExp(`id=(\\d+) [^\\n]*name=${a.backplane.instanceId}:sub(\\s|$)`).exec(clients)?.[1];
      if (id === undefined) throw new Error('the subscriber connection of A is named after its instance');
      await admin.client('KILL', 'ID', id);
      // Published while A's subscriber is down (or just back): only the resync from the database brings it.
      onB.doc.getText('t').insert(7, 'during;');
      await eventually(
        'A to converge after the drop',
        () => onA.doc.getText('t').toString() === 'before;during;',
        {
          timeoutMs: 30_000,
        },
      );
    } finally {
      admin.disconnect();
    }
  });
});
