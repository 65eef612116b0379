import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventually } from '../../../../test/support/eventually.ts';
import { DEFAULT_SYNC_LIMITS, SYNC_CLOSE } from '../limits.ts';
import { type AwarenessEntry, awarenessMessage, encodeAwarenessEntries } from '../protocol.ts';
import { syncSuite } from './suites.ts';
import { rawClient, socketUrl, synced } from './support.ts';

/**
 * Issue 28 item 5: a connection may set or remove only the awareness client ids it introduced (another
 * client's state it sends is dropped: the stock provider sends every state it received back), and the
 * states it sets are bounded in size, depth and number (4413).
 */

const s = syncSuite();

/** A raw client of the document (another actor's token), attached once the server sent its step 1. */
async function awarenessClient(room: string) {
  const { socket, closed } = await rawClient(socketUrl(s.t, room, await s.token()));
  return {
    closed,
    sendStates(entries: AwarenessEntry[]) {
      socket.send(awarenessMessage(encodeAwarenessEntries(entries)));
    },
    close: () => socket.close(),
  };
}

describe('awareness', () => {
  test('a client can neither overwrite nor remove another client’s state; its own goes through', async () => {
    const room = `${s.tenant.roomId}/spoof`;
    const victim = s.open(room, await s.token());
    const observer = s.open(room, await s.token());
    await Promise.all([synced(victim), synced(observer)]);
    victim.awareness.setLocalStateField('user', { name: 'Victim' });
    const victimId = victim.doc.clientID;
    await eventually('the observer to see the victim', () => {
      const user = observer.awareness.getStates().get(victimId)?.user as { name?: string } | undefined;
      return user?.name === 'Victim';
    });
    const clock = observer.awareness.meta.get(victimId)?.clock ?? 0;

    const spoofer = await awarenessClient(room);
    spoofer.sendStates([{ clientId: victimId, clock: clock + 10, json: '{"user":{"name":"Mallory"}}' }]);
    spoofer.sendStates([{ clientId: victimId, clock: clock + 20, json: 'null' }]);
    // Its own id, after the spoofs: once the observer sees it, the spoofs were handled before.
    const ownId = 4242;
    spoofer.sendStates([{ clientId: ownId, clock: 1, json: '{"user":{"name":"Spoofer"}}' }]);
    await eventually('the observer to see the spoofer’s own state', () =>
      observer.awareness.getStates().has(ownId),
    );
    const seen = observer.awareness.getStates().get(victimId)?.user as { name?: string } | undefined;
    assert.equal(seen?.name, 'Victim', 'the victim’s state is neither overwritten nor removed');
    assert.ok(victim.wsconnected && observer.wsconnected);
    spoofer.close();
    await eventually(
      'the spoofer’s own state to go with it',
      () => !observer.awareness.getStates().has(ownId),
    );
    assert.ok(observer.awareness.getStates().has(victimId));
  });

  test(`4413: a state over ${DEFAULT_SYNC_LIMITS.maxAwarenessStateBytes} bytes is refused, and reaches nobody`, async () => {
    const room = `${s.tenant.roomId}/big`;
    const observer = s.open(room, await s.token());
    await synced(observer);
    const client = await awarenessClient(room);
    const big = JSON.stringify({ blob: 'x'.repeat(200 * 1024) });
    client.sendStates([{ clientId: 777, clock: 1, json: big }]);
    assert.equal(await client.closed, SYNC_CLOSE.documentTooLarge);
    assert.equal(observer.awareness.getStates().has(777), false);
  });

  test('4413: a state 3,000 levels deep is refused', async () => {
    const client = await awarenessClient(`${s.tenant.roomId}/deep`);
    const deep = `${'['.repeat(3000)}${']'.repeat(3000)}`;
    client.sendStates([{ clientId: 778, clock: 1, json: deep }]);
    assert.equal(await client.closed, SYNC_CLOSE.documentTooLarge);
  });

  test(`4413: one connection introducing more than ${DEFAULT_SYNC_LIMITS.maxAwarenessClientsPerConnection} client ids`, async () => {
    const client = await awarenessClient(`${s.tenant.roomId}/many`);
    const entries = Array.from({ length: 40 }, (_, i) => ({ clientId: 1000 + i, clock: 1, json: '{}' }));
    client.sendStates(entries);
    assert.equal(await client.closed, SYNC_CLOSE.documentTooLarge);
  });
});
