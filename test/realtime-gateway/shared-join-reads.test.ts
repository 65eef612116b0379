import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestTenant } from '../factories.ts';
import { TestClient } from './client.ts';
import { createRoom, postMessage, sessionToken } from './fixtures.ts';
import { type Instance, startInstance } from './support.ts';

/**
 * Joins of one room at the same moment share their reads (the room exists, its chat position): two tenants
 * with a room of the same id never share one, whatever the timing.
 */
let t: Instance;
before(async () => {
  t = await startInstance();
});
after(async () => t.close());

describe('shared join reads stay inside the tenant', () => {
  test("two tenants join a room id at once: each gets its own room's answer", async () => {
    const owner = await createTestTenant(t);
    const stranger = await createTestTenant(t);
    const room = await createRoom(t, owner.apiKey);
    for (let i = 0; i < 3; i++) await postMessage(t, owner.apiKey, room, `message ${i}`);
    const ownerClients = await Promise.all(
      [1, 2, 3].map(async () => TestClient.connect(t.wsUrl, await sessionToken(t, owner.apiKey))),
    );
    const strangerClients = await Promise.all(
      [1, 2, 3].map(async () => TestClient.connect(t.wsUrl, await sessionToken(t, stranger.apiKey))),
    );
    // Every join sent in one turn, the stranger's first: a shared read would hand its answer to the others.
    for (const [i, c] of strangerClients.entries()) c.send({ type: 'join', room, ref: `s${i}` });
    for (const [i, c] of ownerClients.entries()) c.send({ type: 'join', room, ref: `o${i}` });
    for (const [i, c] of strangerClients.entries()) {
      const reply = await c.waitFor((f) => f.ref === `s${i}`, 'the stranger reply');
      assert.equal(reply.type, 'error', JSON.stringify(reply));
      assert.equal(reply.code, 'not_found');
    }
    for (const [i, c] of ownerClients.entries()) {
      const reply = await c.waitFor((f) => f.ref === `o${i}`, 'the owner reply');
      assert.equal(reply.type, 'joined', JSON.stringify(reply));
      assert.equal(reply.seq, 3, "the owner's chat position");
    }
    // The stranger makes the same room id: its joins now see its own (empty) room.
    await createRoom(t, stranger.apiKey, room);
    const joined = await Promise.all(strangerClients.map((c) => c.join(room)));
    for (const reply of joined) assert.equal(reply.seq, 0, "the stranger's own room has no messages");
    await Promise.all([...ownerClients, ...strangerClients].map((c) => c.close()));
  });
});
