import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { eventually } from '../../../test/support/eventually.ts';
import type { ChatMessage } from '../src/realtime/types.ts';
import type { Realtime, Room } from '../src/realtime.ts';
import { type Deployment, deploy } from './support/realtime-instances.ts';
import { TcpProxy } from './support/realtime-proxy.ts';
import { nodeRealtime, sleep } from './support/realtime-service.ts';

/**
 * A rolling restart: two instances on PostgreSQL + Redis behind a TCP load balancer, 50 SDK clients
 * chatting in one room through it, each instance SIGTERMed (its sockets closed with 1012) and started
 * again in turn. Every client must end with every message of the room, in seq order, once each, and
 * every send stored once.
 */

const CLIENTS = 50;
const ready = Boolean(process.env.DATABASE_URL) && Boolean(process.env.REDIS_URL);

let deployment: Deployment | undefined;
let proxy: TcpProxy | undefined;
const clients: Realtime[] = [];

after(async () => {
  for (const rt of clients) rt.close();
  await proxy?.close();
  await deployment?.close();
});

async function api<T>(baseUrl: string, key: string, method: string, url: string, body?: unknown): Promise<T> {
  const res = await fetch(`${baseUrl}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function history(baseUrl: string, key: string, roomId: string): Promise<ChatMessage[]> {
  const all: ChatMessage[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `after=0&limit=100${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
    const page = await api<{ data: ChatMessage[]; nextCursor: string | null }>(
      baseUrl,
      key,
      'GET',
      `/v1/rooms/${roomId}/messages?${query}`,
    );
    all.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return all;
}

describe('rolling restart', {
  skip: ready ? false : 'needs DATABASE_URL and REDIS_URL (npm run test:multi)',
}, () => {
  test(`${CLIENTS} SDK clients chat through two instances restarted one after the other: 0 lost, 0 duplicated at every client`, {
    timeout: 600_000,
  }, async () => {
    const d = await deploy(2);
    deployment = d;
    const lb = await TcpProxy.start(d.ports());
    proxy = lb;
    const roomId = `rolling-${Date.now().toString(36)}`;
    await api(lb.url, d.apiKey, 'POST', '/v1/rooms', { id: roomId });
    const getToken = (actor: string) => async () =>
      (
        await api<{ token: string }>(lb.url, d.apiKey, 'POST', '/v1/runtime/connect', {
          modules: ['rooms', 'chat'],
          actor: { type: 'end_user', id: actor, identityProvider: 'test' },
        })
      ).token;

    const rooms: Room[] = [];
    const received: ChatMessage[][] = [];
    const reconnects: number[] = Array.from({ length: CLIENTS }, () => 0);
    for (let i = 0; i < CLIENTS; i++) {
      const { rt } = nodeRealtime(lb.url, getToken(`test:client-${i}`));
      clients.push(rt);
      rt.on('reconnect', () => {
        reconnects[i] = (reconnects[i] ?? 0) + 1;
      });
      const room = rt.join(roomId);
      const mine: ChatMessage[] = [];
      room.on('message', (m) => mine.push(m));
      rooms.push(room);
      received.push(mine);
    }
    await Promise.all(rooms.map((room) => room.ready()));

    const started = Date.now();
    const log = (what: string) => console.log(`rolling restart +${Date.now() - started} ms: ${what}`);
    log(`${CLIENTS} clients joined`);
    let restarting = true;
    const sends: Promise<ChatMessage>[] = [];
    let settled = 0;
    const chat = rooms.map(async (room, i) => {
      let k = 0;
      // A message every 3-9 s until both restarts are done, then one more each.
      for (let after = 0; after < 1; after += restarting ? 0 : 1) {
        await sleep(3_000 + Math.random() * 6_000);
        const sent = room.send({ text: `client ${i} message ${k++}` });
        sends.push(sent);
        void sent.then(() => {
          settled += 1;
        });
      }
    });
    const restarts = [];
    for (const i of [0, 1]) {
      await sleep(5_000);
      log(`SIGTERM to instance ${i} (${settled}/${sends.length} sends stored so far)`);
      const restart = await d.restart(i);
      lb.setTargets(d.ports());
      restarts.push(restart);
      log(
        `instance ${i} exited ${restart.exitCode} after ${restart.stopMs} ms, up again in ${restart.startMs} ms`,
      );
    }
    await sleep(5_000);
    restarting = false;
    await Promise.all(chat);
    log(`chat done: ${settled}/${sends.length} sends stored`);
    await eventually(
      () =>
        `every send to be stored: ${sends.length - settled} waiting (${rooms.map((r) => r.queuedSends).join(',')}; statuses ${clients.map((c) => c.status[0]).join('')})`,
      () => settled === sends.length || undefined,
      { timeoutMs: 120_000, stepMs: 200 },
    );
    const stored = await Promise.all(sends);
    const all = await history(lb.url, d.apiKey, roomId);
    console.log(
      `rolling restart: ${sends.length} sends stored; restarts: ${restarts.map((r, i) => `instance ${i} exit ${r.exitCode} after ${r.stopMs} ms, up again in ${r.startMs} ms`).join('; ')}`,
    );
    assert.equal(all.length, sends.length, 'REST holds each send once');
    assert.deepEqual(
      all.map((m) => m.seq),
      Array.from({ length: all.length }, (_, n) => n + 1),
    );
    assert.equal(new Set(all.map((m) => m.text)).size, all.length, 'no text stored twice');
    assert.deepEqual(
      stored.map((m) => m.id).sort(),
      all.map((m) => m.id).sort(),
      'each send resolved with its stored message',
    );
    await eventually(
      () => `every client to have all ${all.length} messages (${received.map((r) => r.length).join(',')})`,
      () => received.every((r) => r.length >= all.length) || undefined,
      { timeoutMs: 120_000, stepMs: 200 },
    );
    let lost = 0;
    let duplicated = 0;
    for (const [i, mine] of received.entries()) {
      const ids = mine.map((m) => m.id);
      duplicated += ids.length - new Set(ids).size;
      lost += all.filter((m) => !ids.includes(m.id)).length;
      assert.deepEqual(
        mine.map((m) => m.seq),
        all.map((m) => m.seq),
        `client ${i}: every message, in seq order, once`,
      );
    }
    console.log(
      [
        'rolling restart figures:',
        `  clients: ${CLIENTS}; messages sent and stored: ${all.length}; at every client: lost ${lost}, duplicated ${duplicated}`,
        `  reconnects scheduled: ${reconnects.reduce((a, b) => a + b, 0)} (per client ${Math.min(...reconnects)}-${Math.max(...reconnects)})`,
      ].join('\n'),
    );
    assert.equal(lost, 0);
    assert.equal(duplicated, 0);
    assert.ok(
      restarts.every((r) => r.exitCode === 0),
      'each instance exited 0 after SIGTERM',
    );
  });
});
