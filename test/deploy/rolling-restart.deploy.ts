// `npm run test:deploy`: three svc instances on PostgreSQL + Redis behind HAProxy (deploy/haproxy.cfg),
// 200 WebSocket clients chatting in 20 rooms and a webhook receiver taking deliveries, while each instance
// in turn is restarted with SIGTERM. Passes when no client lost or got twice a message, no webhook was lost,
// nothing but reconnects went wrong, each instance drained within its window and readiness answered 503
// within 100 ms of the signal. Not a *.test.ts file: `npm test` does not run it (it needs the servers).
import assert from 'node:assert/strict';
import { ResumingClient } from './chat-client.ts';
import { Cluster, freePort } from './cluster.ts';
import { json, roomMessageIds, startReceiver } from './http.ts';
import { type Restart, restart, type StartRetries } from './restart.ts';

const CLIENTS = Number(process.env.DEPLOY_CLIENTS ?? 200);
const ROOMS = Number(process.env.DEPLOY_ROOMS ?? 20);
const DRAIN_WINDOW_MS = Number(process.env.DEPLOY_DRAIN_WINDOW_MS ?? 3000);
const GRACE_MS = 15_000;
/** Each client posts a message about this often while the restarts go on. */
const SEND_EVERY_MS = 2000;
const READINESS_FLIP_LIMIT_MS = 100;
/** The last batch's timer may fire this late on a busy machine and still count as inside the window. */
const WINDOW_SLACK_MS = 1000;
/** The whole run, after which it fails rather than hang. */
const RUN_LIMIT_MS = Number(process.env.DEPLOY_RUN_LIMIT_MS ?? 15 * 60_000);

const cluster = new Cluster({
  SVC_DRAIN_WINDOW_MS: String(DRAIN_WINDOW_MS),
  SVC_SHUTDOWN_GRACE_MS: String(GRACE_MS),
  SVC_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
  // Three instances at the default (33 connections each) would fill the shared server's 97 usable ones.
  SVC_DB_POOL_MAX: '10',
});
let finished = false;
const giveUp = setTimeout(() => {
  process.stderr.write(`test:deploy: gave up after ${RUN_LIMIT_MS} ms\n`);
  void cluster.cleanup().finally(() => process.exit(1));
}, RUN_LIMIT_MS);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void cluster.cleanup().finally(() => process.exit(130)));
}
process.once('exit', () => {
  if (!finished) void cluster.cleanup();
});

/** Starts tried again after a start that failed, counted across the run. */
const retries: StartRetries = { count: 0 };

async function main(): Promise<void> {
  cluster.createDatabase();
  cluster.command(['migrate']);
  const tenantId = (
    JSON.parse(
      cluster.command([
        'tenants',
        'create',
        '--name',
        'Deploy',
        '--owner-email',
        'ops@deploy.example',
        '--json',
      ]),
    ) as {
      id: string;
    }
  ).id;
  const apiKey = (
    JSON.parse(cluster.command(['api-keys', 'create', '--tenant', tenantId, '--scopes', '*', '--json'])) as {
      key: string;
    }
  ).key;

  const ports = await Promise.all([freePort(), freePort(), freePort()]);
  let instances = await Promise.all(ports.map((port, i) => cluster.start(`svc${i + 1}`, port)));
  const lbPort = await freePort();
  const lb = cluster.haproxy({
    SVC_LB_BIND: `127.0.0.1:${lbPort}`,
    SVC1_ADDR: `127.0.0.1:${ports[0]}`,
    SVC2_ADDR: `127.0.0.1:${ports[1]}`,
    SVC3_ADDR: `127.0.0.1:${ports[2]}`,
  });
  const base = `http://127.0.0.1:${lbPort}`;
  await cluster.until(
    async () =>
      (await fetch(`${base}/readyz`)
        .then((r) => r.status)
        .catch(() => 0)) === 200,
    30_000,
    () => 'HAProxy to answer /readyz',
    new Promise((resolve) => lb.once('exit', resolve)),
  );
  const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };

  const receiver = await startReceiver();
  const endpoint = await json<{ id: string }>(`${base}/v1/webhooks`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      url: receiver.url,
      secret: 'deploy-test-secret-0123456789',
      eventTypes: ['chat.message.created'],
    }),
  });
  assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));

  const rooms: string[] = [];
  for (let i = 0; i < ROOMS; i += 1) {
    const room = await json(`${base}/v1/rooms`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ id: `deploy-${i}` }),
    });
    assert.equal(room.status, 201, JSON.stringify(room.body));
    rooms.push(`deploy-${i}`);
  }
  const clients: ResumingClient[] = [];
  for (let i = 0; i < CLIENTS; i += 1) {
    const session = await json<{ token: string }>(`${base}/v1/runtime/connect`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        modules: ['rooms', 'presence', 'chat'],
        actor: { type: 'end_user', id: `deploy:${i}`, identityProvider: 'deploy' },
      }),
    });
    assert.equal(session.status, 201, JSON.stringify(session.body));
    clients.push(
      new ResumingClient(`ws://127.0.0.1:${lbPort}/v1/realtime`, session.body.token, rooms[i % ROOMS] ?? ''),
    );
  }
  await Promise.all(clients.map((client) => client.connect()));
  process.stdout.write(`${CLIENTS} clients joined ${ROOMS} rooms through HAProxy on ${lbPort}\n`);

  // Every client posts every SEND_EVERY_MS, spread over the interval.
  let sent = 0;
  let sending = true;
  const senders = clients.map((client, i) => {
    const tick = () => {
      if (!sending) return;
      client.send(`m${sent}`);
      sent += 1;
    };
    const start = setTimeout(
      () => {
        tick();
        senders[i] = setInterval(tick, SEND_EVERY_MS);
      },
      Math.floor((i * SEND_EVERY_MS) / CLIENTS),
    );
    return start;
  });
  await new Promise((resolve) => setTimeout(resolve, 2 * SEND_EVERY_MS));

  const restarts: Restart[] = [];
  for (let i = 0; i < instances.length; i += 1) {
    const instance = instances[i];
    if (instance === undefined) continue;
    const { figures, next } = await restart(cluster, instance, retries);
    restarts.push(figures);
    instances = instances.map((old, j) => (j === i ? next : old));
    process.stdout.write(
      `${figures.name}: readiness 503 after ${figures.readinessFlipMs.toFixed(1)} ms, sockets drained after ${figures.socketsDrainedMs} ms, workers after ${figures.workersDrainedMs} ms, exit ${figures.exitCode} after ${figures.exitMs.toFixed(0)} ms\n`,
    );
    // Back in HAProxy (two good checks) before the next one goes.
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  await new Promise((resolve) => setTimeout(resolve, 2 * SEND_EVERY_MS));
  sending = false;
  for (const timer of senders) clearInterval(timer);

  // Everything sent is seen back by its sender; then every client of a room holds every message of it.
  await cluster
    .until(
      () => clients.every((c) => c.unconfirmed === 0),
      60_000,
      () => 'every message to be seen back',
    )
    .catch(() => {});
  const unconfirmed = clients.reduce((n, c) => n + c.unconfirmed, 0);
  const byRoom = new Map<string, Set<string>>();
  for (const room of rooms) byRoom.set(room, await roomMessageIds(base, apiKey, room));
  const messages = [...byRoom.values()].reduce((n, ids) => n + ids.size, 0);
  const missing = () =>
    clients.reduce(
      (n, c) => n + [...(byRoom.get(c.room) ?? [])].filter((id) => !c.received.has(id)).length,
      0,
    );
  await cluster
    .until(
      () => missing() === 0,
      30_000,
      () => `${missing()} messages to reach their clients`,
    )
    .catch(() => {});
  const allIds = new Set([...byRoom.values()].flatMap((ids) => [...ids]));
  await cluster
    .until(
      () => [...allIds].every((id) => receiver.messageIds.has(id)),
      60_000,
      () => 'every webhook',
    )
    .catch(() => {});

  const lost = missing();
  const duplicated = clients.reduce((n, c) => n + c.duplicates, 0);
  const reconnects = clients.reduce((n, c) => n + c.reconnects, 0);
  const refusals = clients.reduce((n, c) => n + c.refusals, 0);
  const errors = clients.flatMap((c) => c.errors);
  const webhooksLost = [...allIds].filter((id) => !receiver.messageIds.has(id)).length;
  const figures = {
    clients: CLIENTS,
    rooms: ROOMS,
    messagesSent: sent,
    messagesStored: messages,
    frameDeliveriesExpected: clients.reduce((n, c) => n + (byRoom.get(c.room)?.size ?? 0), 0),
    unconfirmed,
    lost,
    duplicated,
    reconnects,
    refusedUpgrades: refusals,
    clientErrors: errors.length,
    webhookDeliveriesReceived: receiver.deliveries,
    webhooksLost,
    restarts: restarts.length,
    startRetries: retries.count,
    drainWindowMs: DRAIN_WINDOW_MS,
    graceMs: GRACE_MS,
    socketsDrainedMs: restarts.map((r) => r.socketsDrainedMs),
    workersDrainedMs: restarts.map((r) => r.workersDrainedMs),
    exitMs: restarts.map((r) => Math.round(r.exitMs)),
    readinessFlipMs: restarts.map((r) => Number(r.readinessFlipMs.toFixed(1))),
  };
  process.stdout.write(`\ntest:deploy figures\n${JSON.stringify(figures, null, 2)}\n`);
  if (errors.length > 0)
    process.stdout.write(`client errors (first 10):\n${errors.slice(0, 10).join('\n')}\n`);
  for (const client of clients) client.close();
  receiver.close();

  const failures = [
    lost > 0 && `${lost} messages lost at clients`,
    duplicated > 0 && `${duplicated} messages duplicated at clients`,
    messages !== sent && `${sent} messages sent, ${messages} stored`,
    unconfirmed > 0 && `${unconfirmed} messages sent were never seen back by their sender`,
    webhooksLost > 0 && `${webhooksLost} webhooks lost`,
    errors.length > 0 && `client errors other than reconnects: ${errors.slice(0, 5).join('; ')}`,
    reconnects === 0 && 'no client was told to reconnect: the restarts did not reach the sockets',
    ...restarts.flatMap((r) => [
      r.exitCode !== 0 && `${r.name} exited ${r.exitCode}`,
      !(r.socketsDrainedMs <= DRAIN_WINDOW_MS + WINDOW_SLACK_MS) &&
        `${r.name} closed its sockets over ${r.socketsDrainedMs} ms (window ${DRAIN_WINDOW_MS} ms)`,
      !(r.exitMs < GRACE_MS) && `${r.name} exited after ${r.exitMs} ms (grace ${GRACE_MS} ms)`,
      !(r.readinessFlipMs <= READINESS_FLIP_LIMIT_MS) &&
        `${r.name} readiness answered 503 only after ${r.readinessFlipMs} ms`,
    ]),
  ].filter((failure): failure is string => typeof failure === 'string');
  if (failures.length > 0) throw new Error(`test:deploy failed:\n- ${failures.join('\n- ')}`);
  process.stdout.write('test:deploy passed\n');
}

main()
  .then(
    () => 0,
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      return 1;
    },
  )
  .then(async (code) => {
    finished = true;
    clearTimeout(giveUp);
    await cluster.cleanup();
    process.exit(code);
  });
