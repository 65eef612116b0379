import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { eventually } from '../../../test/support/eventually.ts';
import type { PresenceChange } from '../src/realtime/members.ts';
import { createRealtime, type Realtime, type WebSocketConstructor } from '../src/realtime.ts';
import { FakeScheduler, type FakeSocket, fakeWebSocket } from './support/realtime-fakes.ts';
import { nodeRealtime, type RealtimeService, startService } from './support/realtime-service.ts';

/** The SDK asks for `presence.diff` with every join and applies it to `room.members`. */

const actor = (id: string) => ({ type: 'end_user' as const, id, identityProvider: 'test' });
const member = (id: string, state: Record<string, unknown> = {}) => ({
  actor: actor(id),
  state,
  connections: 1,
  joinedAt: '2026-01-05T10:00:00.000Z',
  updatedAt: '2026-01-05T10:00:00.000Z',
});

/** A client on a fake socket the test plays the server of. */
async function fakeClient() {
  const scheduler = new FakeScheduler();
  const WS = fakeWebSocket(scheduler, (socket) => socket.accept());
  const rt = createRealtime({
    baseUrl: 'http://svc.test',
    getToken: async () => 'token',
    WebSocket: WS,
    setTimeout: scheduler.setTimeout,
    clearTimeout: scheduler.clearTimeout,
    now: scheduler.now,
  });
  const room = rt.join('lobby');
  await scheduler.advance(1);
  const socket = WS.sockets[0] as FakeSocket;
  const joins = () => socket.sent.map((s) => JSON.parse(s)).filter((f) => f.type === 'join');
  return { rt, room, socket, scheduler, joins };
}

describe('presence.diff in the SDK', () => {
  test('joins ask for it; a diff is applied to the members, one presence event per member in it', async () => {
    const { rt, room, socket, joins } = await fakeClient();
    assert.equal(joins()[0]?.presenceDiff, true);
    socket.deliver({
      type: 'joined',
      room: 'lobby',
      ref: joins()[0]?.ref,
      members: [member('a'), member('b')],
    });
    const changes: PresenceChange[] = [];
    room.on('presence', (change) => changes.push(change));
    socket.deliver({
      type: 'presence.diff',
      room: 'lobby',
      joins: [member('c', { new: true })],
      updates: [member('b', { v: 2 })],
      leaves: [actor('a')],
    });
    assert.deepEqual(
      room.members.map((m) => [m.actor.id, m.state]),
      [
        ['b', { v: 2 }],
        ['c', { new: true }],
      ],
    );
    assert.deepEqual(
      changes.map((c) => [
        c.type,
        c.type === 'leave' ? c.actor.id : c.type === 'sync' ? '' : c.member.actor.id,
      ]),
      [
        ['leave', 'a'],
        ['join', 'c'],
        ['update', 'b'],
      ],
    );
    assert.deepEqual(changes.at(-1)?.members, room.members);
    // The single frames still work (a server that sends them, or an instance older than the field).
    socket.deliver({ type: 'presence.leave', room: 'lobby', actor: actor('c') });
    assert.deepEqual(
      room.members.map((m) => m.actor.id),
      ['b'],
    );
    rt.close();
  });

  test('a server that does not know the field refuses it once; the room joins again without it', async () => {
    const { rt, room, socket, scheduler, joins } = await fakeClient();
    socket.deliver({
      type: 'error',
      code: 'invalid_frame',
      message: 'invalid frame: /frame/presenceDiff is not a known field',
      ref: joins()[0]?.ref,
      details: [{ field: '/frame/presenceDiff', message: 'is not a known field', code: 'unknown_field' }],
    });
    await scheduler.advance(1);
    assert.equal(joins().length, 2);
    assert.equal(joins()[1]?.presenceDiff, undefined);
    socket.deliver({ type: 'joined', room: 'lobby', ref: joins()[1]?.ref, members: [member('a')] });
    assert.equal(room.joined, true);
    rt.close();
  });
});

describe('presence.diff from the service', () => {
  let svc: RealtimeService;
  const clients: Realtime[] = [];
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    for (const rt of clients) rt.close();
    await svc.close();
  });

  test('a room the SDK joined keeps its members from diffs as others join, update and leave', async () => {
    const roomId = await svc.createRoom();
    const frames: string[] = [];
    // The watcher's socket records the frame types it receives.
    const Recording = class extends WebSocket {
      constructor(url: string) {
        super(url);
        this.on('message', (data) => frames.push(JSON.parse(String(data)).type));
      }
    } as unknown as WebSocketConstructor;
    const watcher = nodeRealtime(svc.baseUrl, () => svc.token('test:watcher'), { WebSocket: Recording }).rt;
    clients.push(watcher);
    const room = watcher.join(roomId);
    await room.ready();
    const others = ['test:o1', 'test:o2', 'test:o3'].map((id) => {
      const { rt } = nodeRealtime(svc.baseUrl, () => svc.token(id));
      clients.push(rt);
      return { id, rt, room: rt.join(roomId, { presence: { id } }) };
    });
    await Promise.all(others.map((o) => o.room.ready()));
    const ids = () => room.members.map((m) => m.actor.id).sort();
    await eventually('every member', () => ids().length === 4 || undefined);
    assert.deepEqual(ids(), ['test:o1', 'test:o2', 'test:o3', 'test:watcher']);
    others[0]?.room.updatePresence({ away: true });
    await eventually('the update', () => room.members.find((m) => m.actor.id === 'test:o1')?.state.away);
    others[1]?.rt.close();
    await eventually('the leave', () => !ids().includes('test:o2') || undefined);
    assert.ok(frames.includes('presence.diff'), `frames: ${frames.join(', ')}`);
    assert.ok(!frames.some((f) => ['presence.join', 'presence.update', 'presence.leave'].includes(f)));
  });
});
