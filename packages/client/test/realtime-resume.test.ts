import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventually } from '../../../test/support/eventually.ts';
import type { ChatMessage } from '../src/realtime/types.ts';
import type { Realtime, Room } from '../src/realtime.ts';
import type { TcpProxy } from './support/realtime-proxy.ts';
import { nodeRealtime, type RealtimeService, sleep, withProxiedService } from './support/realtime-service.ts';

/**
 * The SDK against the real service, through a TCP proxy that cuts the client's socket: what the client
 * missed arrives after the reconnect, in order, once; what it sent offline is stored once.
 */

const CUT_MS = 5_000;
const THEIRS = 200;
const MINE = 50;
/** Of the cut client's sends, these are sent just before the cut: in flight when the socket goes. */
const IN_FLIGHT = 5;

let svc: RealtimeService;
let proxy: TcpProxy;
const clients: Realtime[] = [];

withProxiedService(clients, (opened, cut) => {
  svc = opened;
  proxy = cut;
});

/** Every message a room gave the app, and every `joined` (with where it resumed from). */
function record(room: Room) {
  const messages: ChatMessage[] = [];
  const joins: { changeSeq: number; resumedFrom: number | null; at: number }[] = [];
  room.on('message', (m) => messages.push(m));
  room.on('joined', (j) =>
    joins.push({ changeSeq: j.changeSeq, resumedFrom: j.resumedFrom, at: Date.now() }),
  );
  return { messages, joins };
}

function duplicates(messages: ChatMessage[]): number {
  return messages.length - new Set(messages.map((m) => m.id)).size;
}

describe('resume after a cut connection', () => {
  test(`a client cut for ${CUT_MS / 1000} s gets all ${THEIRS} messages sent meanwhile, in seq order, once each; its ${MINE} offline sends are stored once each`, async () => {
    const roomId = await svc.createRoom();
    const cut = nodeRealtime(proxy.url, () => svc.token('test:cut'));
    const other = nodeRealtime(svc.baseUrl, () => svc.token('test:other'), { maxQueuedSends: THEIRS });
    clients.push(cut.rt, other.rt);
    const cutRoom = cut.rt.join(roomId);
    const otherRoom = other.rt.join(roomId);
    await Promise.all([cutRoom.ready(), otherRoom.ready()]);
    const seen = record(cutRoom);
    const statuses: { status: string; at: number }[] = [];
    cut.rt.on('status', ({ status }) => statuses.push({ status, at: Date.now() }));
    let attempts = 0;
    cut.rt.on('reconnect', () => {
      attempts += 1;
    });

    const mine: Promise<ChatMessage>[] = [];
    for (let i = 0; i < IN_FLIGHT; i++) mine.push(cutRoom.send({ text: `mine ${i}` }));
    proxy.cut();
    const cutAt = Date.now();
    for (let i = IN_FLIGHT; i < MINE; i++) mine.push(cutRoom.send({ text: `mine ${i}` }));
    assert.equal(cutRoom.queuedSends, MINE, 'the offline sends wait in the room');
    const theirs = Array.from({ length: THEIRS }, (_, i) => otherRoom.send({ text: `theirs ${i}` }));
    await sleep(CUT_MS);
    proxy.restore();
    const restoredAt = Date.now();

    const [storedMine, storedTheirs] = await Promise.all([Promise.all(mine), Promise.all(theirs)]);
    const history = await svc.allMessages(roomId);
    const total = THEIRS + MINE;
    assert.equal(history.length, total, 'REST has every message once');
    await eventually(
      `${total} messages at the cut client`,
      () => seen.messages.length >= total || undefined,
      {
        timeoutMs: 60_000,
      },
    );
    const caughtUpAt = Date.now();

    const received = seen.messages;
    assert.equal(duplicates(received), 0, 'no message twice');
    assert.deepEqual(
      received.map((m) => m.seq),
      history.map((m) => m.seq),
      'every message of the room, in seq order',
    );
    assert.deepEqual(
      received.map((m) => m.id),
      history.map((m) => m.id),
    );
    const theirsReceived = received.filter((m) => m.author.id === 'test:other');
    // Each once; their order is the order they were stored in (a send the server refused for a moment,
    // rate_limited, goes again after a pause and may be stored after later ones: docs/client.md).
    assert.deepEqual(
      theirsReceived.map((m) => m.text).sort(),
      Array.from({ length: THEIRS }, (_, i) => `theirs ${i}`).sort(),
      `all ${THEIRS} of the other client's messages`,
    );
    const mineStored = history.filter((m) => m.author.id === 'test:cut');
    assert.deepEqual(
      mineStored.map((m) => m.text).sort(),
      Array.from({ length: MINE }, (_, i) => `mine ${i}`).sort(),
      'each offline send stored once',
    );
    assert.deepEqual(
      storedMine.map((m) => m.id).sort(),
      mineStored.map((m) => m.id).sort(),
      'each send resolved with its stored message',
    );
    assert.equal(new Set(storedTheirs.map((m) => m.id)).size, THEIRS);

    const resume = seen.joins.at(-1);
    assert.ok(resume !== undefined && resume.resumedFrom !== null, 'the rejoin resumed from a changeSeq');
    const reconnected = statuses.find((s) => s.status === 'connected' && s.at >= restoredAt);
    assert.ok(reconnected !== undefined, 'connected again after the restore');
    console.log(
      [
        'loss test figures:',
        `  sent: ${THEIRS} by the other client + ${MINE} by the cut client (${IN_FLIGHT} in flight at the cut)`,
        `  received by the cut client: ${received.length} (${theirsReceived.length} of the other's), duplicated: ${duplicates(received)}, out of order: 0`,
        `  stored (REST): ${history.length}; the cut client's sends stored once each: ${mineStored.length}/${MINE}`,
        `  resumed: rejoin from changeSeq ${resume.resumedFrom} while the room stood at ${resume.changeSeq} (${resume.changeSeq - (resume.resumedFrom ?? 0)} changes replayed)`,
        `  offline: ${restoredAt - cutAt} ms; ${attempts} reconnect attempts scheduled`,
        `  reconnect: connected ${reconnected.at - restoredAt} ms after the network came back, rejoined ${resume.at - restoredAt} ms after; caught up (all ${total}) ${caughtUpAt - restoredAt} ms after`,
      ].join('\n'),
    );
  });
});
