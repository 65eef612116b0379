import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as encoding from 'lib0/encoding';
import { WebSocket } from 'ws';
import { Awareness, encodeAwarenessUpdate } from 'y-protocols/awareness';
import type { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { eventually } from '../../../../test/support/eventually.ts';
import { ManualClock } from '../../../core/clock.ts';
import { DEFAULT_SYNC_LIMITS, SYNC_CLOSE } from '../limits.ts';
import { syncSuite } from './suites.ts';
import { configureSync, rawClient, socketUrl, synced, syncToken, tenantWithRoom } from './support.ts';

/**
 * Peers that stop taking part: one that no longer answers pings is dropped, one that stops reading is
 * closed with 1013 once 8 MiB wait for it. The app runs on a manual clock: pings happen only when the
 * test moves it, and a closed peer's socket is cut (2 s after the close frame) only then too, so a slow
 * reader has all the time it needs to read up to the close frame.
 */

const PING_MS = 10_000;
const clock = new ManualClock(Date.now());
const s = syncSuite({
  tenants: 0,
  clock,
  // The default send buffer limit (8 MiB) is what is tested; access checks stay out of the way.
  limits: { pingIntervalMs: PING_MS, accessCheckIntervalMs: 24 * 3600_000 },
});

/** A raw client of the document whose close the test awaits (guarded). */
async function guardedClient(room: string, token: string, options: { autoPong?: boolean } = {}) {
  const { socket, closed } = await rawClient(socketUrl(s.t, room, token), options);
  return { socket, closed: guarded(closed, 'the server to close the raw client') };
}

/** A guard, not a threshold: a close that never comes fails the test instead of hanging it. */
function guarded<T>(promise: Promise<T>, what: string, timeoutMs = 30_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`gave up waiting for ${what}`)), timeoutMs);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

/** Resolves when the provider's socket receives the server's next ping. */
function pinged(p: WebsocketProvider): Promise<void> {
  const socket = p.ws as unknown as WebSocket | null;
  if (socket === null) throw new Error('the provider is not connected');
  return new Promise((resolve) => socket.once('ping', () => resolve()));
}

/** The server's side of every connection whose close it has started (close frame queued). */
function serverSocketsClosing(): number {
  return [...s.t.app.websocketServer.clients].filter((ws) => ws.readyState === WebSocket.CLOSING).length;
}

describe('peers that stop taking part', () => {
  test('a peer that does not answer a ping is dropped at the next one; peers that answer stay', async () => {
    const tenant = await tenantWithRoom(s.t);
    const token = await syncToken(s.t, tenant.apiKey);
    const room = `${tenant.roomId}/ping`;
    const live = s.open(room, token);
    const watcher = s.open(room, token);
    await Promise.all([synced(live), synced(watcher)]);
    const hub = s.t.hub;
    const before = hub.stats.connections;

    // A client that stays silent and does not answer pings (its awareness state is set, so its
    // disappearance is visible to the others).
    const dead = await guardedClient(room, token, { autoPong: false });
    const deadId = 424242;
    const ghostDoc = new Y.Doc();
    ghostDoc.clientID = deadId;
    const ghost = new Awareness(ghostDoc);
    ghost.setLocalStateField('user', { name: 'Ghost' });
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, 1);
    encoding.writeVarUint8Array(encoder, encodeAwarenessUpdate(ghost, [deadId]));
    dead.socket.send(encoding.toUint8Array(encoder));
    await eventually('the watcher to see the ghost', () => watcher.awareness.getStates().has(deadId));
    ghost.destroy();
    ghostDoc.destroy();
    assert.equal(hub.stats.connections, before + 1);

    // First ping: everyone is pinged; the providers' ws answers (then shows a sign of life the others
    // see, so the pong, sent before it, has reached the server), the dead peer does not.
    const pings = [live, watcher].map((p) => guarded(pinged(p), 'a ping'));
    clock.advance(PING_MS);
    await Promise.all(pings);
    live.awareness.setLocalStateField('beat', 1);
    watcher.awareness.setLocalStateField('beat', 1);
    await eventually(
      'each provider to see the other’s beat',
      () =>
        live.awareness.getStates().get(watcher.doc.clientID)?.beat === 1 &&
        watcher.awareness.getStates().get(live.doc.clientID)?.beat === 1,
    );
    assert.equal(hub.stats.connections, before + 1, 'nobody is dropped at the first ping');
    // Second ping: the dead peer missed the first one and is cut off.
    clock.advance(PING_MS);
    assert.equal(await dead.closed, 1006, 'terminated without a close frame');
    await eventually('the hub to count it gone', () => hub.stats.connections === before);
    await eventually('its awareness to disappear', () => !watcher.awareness.getStates().has(deadId));
    // The peers that answered are untouched and still relay.
    live.doc.getText('t').insert(0, 'alive');
    await eventually(
      'the watcher to receive the edit',
      () => watcher.doc.getText('t').toString() === 'alive',
    );
    assert.ok(live.wsconnected && watcher.wsconnected);
  });

  test('1013: a client that stops reading is closed once 8 MiB wait for it; the writer and other readers go on', async () => {
    const tenant = await tenantWithRoom(s.t);
    // Room for the updates this test sends (each appended to the log) and no rate limit in the way.
    await configureSync(s.t, tenant, {
      enabled: true,
      config: { maxDocumentBytes: 64 * 1024 * 1024, maxUpdatesPerSecond: 10_000 },
    });
    const token = await syncToken(s.t, tenant.apiKey);
    const room = `${tenant.roomId}/slow`;
    const writer = s.open(room, token);
    const reader = s.open(room, token);
    await Promise.all([synced(writer), synced(reader)]);
    const slow = await guardedClient(room, token);
    // The slow client stops reading its TCP socket: the kernel's buffers fill, then the server's.
    slow.socket.pause();

    const text = writer.doc.getText('t');
    const progress = writer.doc.getMap('progress');
    const chunk = 'x'.repeat(256 * 1024);
    // Each round inserts 256 KiB and deletes it again (with the round's number), so no copy of the
    // document grows with the test; the server relays both to the slow client. 8 MiB plus the loopback
    // buffers is far below this bound.
    const maxRounds = 160;
    let rounds = 0;
    while (serverSocketsClosing() === 0 && rounds < maxRounds) {
      rounds += 1;
      const round = rounds;
      text.insert(0, chunk);
      writer.doc.transact(() => {
        text.delete(0, chunk.length);
        progress.set('round', round);
      });
      // The other reader has it: the server handled the round (and relayed it, or tried, to the slow one).
      await eventually(
        `the reader to receive round ${round}`,
        () => reader.doc.getMap('progress').get('round') === round,
      );
    }
    assert.ok(rounds < maxRounds, `the slow client was not closed after ${rounds} rounds`);
    assert.ok(rounds * chunk.length > DEFAULT_SYNC_LIMITS.maxBufferedBytes, 'closed before 8 MiB were sent');

    // It reads again: everything queued before the close arrives, then the close frame.
    slow.socket.resume();
    assert.equal(await slow.closed, SYNC_CLOSE.tryAgainLater);

    // The writer and the other reader were not harmed.
    text.insert(0, 'after');
    await eventually(
      'the reader to receive the last edit',
      () => reader.doc.getText('t').toString() === 'after',
    );
    assert.ok(writer.wsconnected && reader.wsconnected);
  });
});
