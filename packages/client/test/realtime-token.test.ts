import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../../src/core/clock.ts';
import { call } from '../../../test/helper.ts';
import { eventually } from '../../../test/support/eventually.ts';
import type { ChatMessage } from '../src/realtime/types.ts';
import type { Realtime } from '../src/realtime.ts';
import { TcpProxy } from './support/realtime-proxy.ts';
import {
  nodeRealtime,
  postMessage,
  type RealtimeService,
  sleep,
  startService,
} from './support/realtime-service.ts';

/**
 * Session tokens expire (SVC_SESSION_TTL_SECONDS); the client asks `getToken` before every connect, so a
 * token that expired while the client was offline, or while it was connected (4401), is replaced and the
 * client resumes. The service runs on a manual clock: its tokens expire when the test moves it.
 */

let svc: RealtimeService;
let proxy: TcpProxy;
const clock = new ManualClock(Date.now());
const clients: Realtime[] = [];

before(async () => {
  svc = await startService({ clock });
  proxy = await TcpProxy.start([svc.port]);
});
after(async () => {
  for (const rt of clients) rt.close();
  await proxy.close();
  await svc.close();
});

const pastExpiry = () => (svc.t.config.sessionTtlSeconds + 60) * 1000;

async function realtimeStatus(token: string): Promise<number> {
  return (await call(svc.t.app, { method: 'GET', url: `/v1/realtime?token=${token}` })).statusCode;
}

describe('token expiry', () => {
  test('a token that expired while offline: getToken is called again and the client resumes', async () => {
    const roomId = await svc.createRoom();
    const issued: string[] = [];
    const { rt, tokens } = nodeRealtime(proxy.url, async () => {
      const token = await svc.token('test:offline');
      issued.push(token);
      return token;
    });
    clients.push(rt);
    const room = rt.join(roomId);
    await room.ready();
    const received: ChatMessage[] = [];
    room.on('message', (m) => received.push(m));
    await postMessage(svc, roomId, 'before');
    await eventually('the first message', () => received.length === 1 || undefined);
    const callsBefore = tokens();

    proxy.cut();
    clock.advance(pastExpiry());
    const [first] = issued;
    assert.ok(first !== undefined);
    assert.equal(await realtimeStatus(first), 401, 'the first token has expired');
    for (let i = 0; i < 5; i++) await postMessage(svc, roomId, `offline ${i}`);
    proxy.restore();

    await eventually('the messages sent while offline', () => received.length === 6 || undefined, {
      timeoutMs: 30_000,
    });
    assert.deepEqual(
      received.map((m) => m.text),
      ['before', 'offline 0', 'offline 1', 'offline 2', 'offline 3', 'offline 4'],
    );
    assert.ok(tokens() > callsBefore, 'getToken was called for the reconnect');
    const last = issued.at(-1);
    assert.ok(last !== undefined && last !== first);
    assert.equal(await realtimeStatus(last), 200, 'the client reconnected with a fresh token');
    assert.equal(rt.status, 'connected');
  });

  test('a token that expires while connected (4401): a fresh one, and the client resumes', async () => {
    const roomId = await svc.createRoom();
    const { rt, tokens } = nodeRealtime(svc.baseUrl, () => svc.token('test:online'));
    clients.push(rt);
    const closes: number[] = [];
    rt.on('status', (s) => {
      if (s.code !== undefined) closes.push(s.code);
    });
    const room = rt.join(roomId);
    await room.ready();
    const received: ChatMessage[] = [];
    room.on('message', (m) => received.push(m));
    const callsBefore = tokens();
    // In steps, with real time between them for the server's pings to be answered: one jump would find
    // the socket silent for minutes and drop it before its token's expiry closes it.
    for (let moved = 0; moved < pastExpiry() && !closes.includes(4401); moved += 10_000) {
      clock.advance(10_000);
      await sleep(30);
    }
    await eventually('the 4401 close', () => closes.includes(4401) || undefined);
    for (let i = 0; i < 3; i++) await postMessage(svc, roomId, `after expiry ${i}`);
    await eventually('the messages after the expiry', () => received.length === 3 || undefined, {
      timeoutMs: 30_000,
    });
    assert.ok(tokens() > callsBefore);
    assert.equal(rt.status, 'connected');
  });
});
