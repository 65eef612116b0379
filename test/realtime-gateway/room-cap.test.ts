import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { TestClient } from './client.ts';
import { createRoom, sessionToken, tenantWithRoom } from './fixtures.ts';
import { type Instance, startInstance } from './support.ts';

let t: Instance;
before(async () => {
  // A small cap, set the way an operator sets it: through the configuration.
  t = await startInstance({
    config: {
      realtimeMaxRoomMembers: loadConfig({ SVC_REALTIME_MAX_ROOM_MEMBERS: '2' }).realtimeMaxRoomMembers,
    },
  });
});
after(async () => t.close());

describe('room member cap (SVC_REALTIME_MAX_ROOM_MEMBERS)', () => {
  test('a join past the cap gets error room_full, the connection stays open, and a freed place can be taken', async () => {
    const tenant = await tenantWithRoom(t);
    const otherRoom = await createRoom(t, tenant.apiKey);
    const clients = await Promise.all(
      [0, 1, 2].map(async () => TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey))),
    );
    const [first, second, third] = clients;
    if (first === undefined || second === undefined || third === undefined) throw new Error('no clients');
    await first.join(tenant.roomId);
    await second.join(tenant.roomId);

    third.send({ type: 'join', room: tenant.roomId, ref: 'j-full' });
    const refused = await third.waitFor((f) => f.ref === 'j-full', 'the answer to the third join');
    assert.equal(refused.type, 'error');
    assert.equal(refused.code, 'room_full');
    assert.equal(
      refused.message,
      `room ${tenant.roomId} has 2 connections on this instance, its limit; retry later`,
    );
    // Only this join was refused: the connection is open and joins another room.
    assert.equal(third.closedWith, undefined);
    await third.join(otherRoom);

    second.send({ type: 'leave', room: tenant.roomId });
    await first.waitForType('presence.leave');
    await third.join(tenant.roomId);
    for (const client of clients) await client.close();
  });

  test('the cap is a whole number from 1 to 100000', () => {
    assert.equal(loadConfig({}).realtimeMaxRoomMembers, 500);
    assert.throws(() => loadConfig({ SVC_REALTIME_MAX_ROOM_MEMBERS: '0' }), /SVC_REALTIME_MAX_ROOM_MEMBERS/);
  });
});
