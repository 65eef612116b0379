import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRealtime, DEFAULT_BACKOFF, type Realtime, reconnectDelay } from '../src/realtime.ts';
import { FakeScheduler, type FakeSocket, fakeWebSocket, seededRandom } from './support/realtime-fakes.ts';

/**
 * The reconnect schedule, on injected timers and randomness: the first retry within 1 s, no wait over
 * 20 s, and a crowd sent away by a restart (1012) comes back spread out. No real time passes.
 */

const CROWD = 1_000;

function client(scheduler: FakeScheduler, WebSocket: ReturnType<typeof fakeWebSocket>, random: () => number) {
  return createRealtime({
    baseUrl: 'http://svc.test',
    getToken: () => 'token',
    WebSocket,
    random,
    setTimeout: scheduler.setTimeout,
    clearTimeout: scheduler.clearTimeout,
    now: scheduler.now,
  });
}

/** The most of `times` (ms) that fall in any one window of `windowMs`. */
function busiestWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while ((sorted[end] ?? 0) - (sorted[start] ?? 0) >= windowMs) start += 1;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

describe('reconnect backoff', () => {
  test('full jitter: the first retry within 1 s, each ceiling doubling, none over 20 s', async () => {
    const almostOne = () => 0.999_999;
    assert.ok(reconnectDelay(0, false, almostOne, DEFAULT_BACKOFF) <= 1_000);
    assert.equal(
      reconnectDelay(0, false, () => 0, DEFAULT_BACKOFF),
      0,
    );
    const ceilings = Array.from({ length: 8 }, (_, n) =>
      reconnectDelay(n, false, almostOne, DEFAULT_BACKOFF),
    );
    assert.deepEqual(ceilings, [999, 1_999, 3_999, 7_999, 15_999, 19_999, 19_999, 19_999]);
    for (let n = 0; n < 100; n++) assert.ok(reconnectDelay(n, true, almostOne, DEFAULT_BACKOFF) < 20_000);
  });

  test('through the client: a refused server is retried within 1 s first, then up to the 20 s cap', async () => {
    const scheduler = new FakeScheduler();
    const WebSocket = fakeWebSocket(scheduler, (socket) => socket.end(1006));
    const rt = client(scheduler, WebSocket, seededRandom(7));
    const delays: number[] = [];
    rt.on('reconnect', ({ delayMs }) => delays.push(delayMs));
    await scheduler.advance(10 * 60_000);
    rt.close();
    assert.ok(delays.length > 20, `${delays.length} attempts in 10 simulated minutes`);
    assert.ok((delays[0] ?? Infinity) <= 1_000, `first retry after ${delays[0]} ms`);
    assert.ok(Math.max(...delays) <= 20_000);
    assert.ok(Math.max(...delays.slice(10)) > 10_000, 'late waits use the range up to the cap');
    // The first socket, then one per retry that came due (the last one scheduled had not).
    assert.equal(WebSocket.sockets.length, delays.length, 'one socket per attempt');
  });

  test(`${CROWD} clients sent away by a restart (1012): no second holds more than 20 % of the reconnects`, async () => {
    const scheduler = new FakeScheduler();
    const random = seededRandom(42);
    let restarting = false;
    const reconnectedAt: number[] = [];
    const WebSocket = fakeWebSocket(scheduler, (socket) => {
      if (restarting) reconnectedAt.push(scheduler.now());
      socket.accept();
    });
    const clients: Realtime[] = Array.from({ length: CROWD }, () => client(scheduler, WebSocket, random));
    await scheduler.advance(100);
    assert.ok(clients.every((rt) => rt.status === 'connected'));
    const first = [...WebSocket.sockets];
    restarting = true;
    const restartAt = scheduler.now();
    for (const socket of first) socket.end(1012, 'server restarting');
    await scheduler.advance(60_000);
    assert.equal(reconnectedAt.length, CROWD, 'every client reconnected once');
    assert.ok(clients.every((rt) => rt.status === 'connected'));
    const busiest = busiestWindow(reconnectedAt, 1_000);
    const last = Math.max(...reconnectedAt) - restartAt;
    console.log(
      `restart crowd: ${CROWD} clients, busiest 1 s window ${busiest} reconnects (${(busiest / CROWD) * 100} %), all back within ${last} ms`,
    );
    assert.ok(busiest <= CROWD * 0.2, `busiest second: ${busiest} of ${CROWD}`);
    for (const rt of clients) rt.close();
  });

  test('a lone drop (1006) after a healthy connection is retried within 1 s', async () => {
    const scheduler = new FakeScheduler();
    const WebSocket = fakeWebSocket(scheduler, (socket) => socket.accept());
    const rt = client(scheduler, WebSocket, () => 0.999_999);
    await scheduler.advance(100);
    const delays: number[] = [];
    rt.on('reconnect', ({ delayMs }) => delays.push(delayMs));
    for (let i = 0; i < 5; i++) {
      (WebSocket.sockets.at(-1) as FakeSocket).end(1006);
      await scheduler.advance(15_000);
      assert.equal(rt.status, 'connected');
    }
    assert.deepEqual(delays, [999, 999, 999, 999, 999], 'each healthy connection starts the backoff over');
    rt.close();
  });
});

describe('close codes', () => {
  /** A client whose server accepts, then ends the first `codes.length` connections with those codes. */
  async function closedWith(codes: number[]) {
    const scheduler = new FakeScheduler();
    let n = 0;
    const WebSocket = fakeWebSocket(scheduler, (socket) => {
      socket.accept();
      const code = codes[n++];
      if (code !== undefined) scheduler.setTimeout(() => socket.end(code, `closed with ${code}`), 10);
    });
    let tokens = 0;
    const rt = createRealtime({
      baseUrl: 'http://svc.test',
      getToken: () => `token-${++tokens}`,
      WebSocket,
      random: () => 0.5,
      setTimeout: scheduler.setTimeout,
      clearTimeout: scheduler.clearTimeout,
      now: scheduler.now,
    });
    const room = rt.join('lobby');
    const sent = room.send({ text: 'waiting' });
    sent.catch(() => {});
    await scheduler.advance(60_000);
    return { rt, sent, sockets: WebSocket.sockets, tokens };
  }

  for (const code of [4403, 1008, 1009, 1003, 4404]) {
    test(`${code}: the client stops (closed, with the code and reason) and rejects waiting sends`, async () => {
      const { rt, sent, sockets } = await closedWith([code]);
      assert.equal(rt.status, 'closed');
      assert.deepEqual(rt.closeReason, { code, reason: `closed with ${code}` });
      assert.equal(sockets.length, 1, 'no reconnect');
      await assert.rejects(sent, { name: 'RealtimeError', code: 'closed' });
    });
  }

  for (const code of [1000, 1001, 1006, 1011, 1012, 1013, 4408, 4413, 4429]) {
    test(`${code}: the client reconnects with a fresh token`, async () => {
      const { rt, sockets, tokens } = await closedWith([code]);
      assert.equal(rt.status, 'connected');
      assert.equal(sockets.length, 2);
      assert.equal(tokens, 2, 'getToken before each connect');
      assert.match(sockets[1]?.url ?? '', /^ws:\/\/svc\.test\/v1\/realtime\?token=token-2$/);
      rt.close();
    });
  }

  test('4401 (token expired or revoked): reconnects with a fresh token; stops when the fresh one is refused too', async () => {
    const once = await closedWith([4401]);
    assert.equal(once.rt.status, 'connected');
    assert.equal(once.tokens, 2);
    once.rt.close();
    const twice = await closedWith([4401, 4401]);
    assert.equal(twice.rt.status, 'closed');
    assert.equal(twice.rt.closeReason?.code, 4401);
  });
});
