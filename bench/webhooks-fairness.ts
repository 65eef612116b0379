// `node --import tsx bench/webhooks-fairness.ts`: issue 28 item 7's scenario against one webhook worker with
// its default limits. Tenant A has 10 endpoints that accept and never answer and sends 100 events (1,000
// deliveries); then tenant B sends 20 events to one healthy endpoint. Prints B's commit-to-receipt
// latencies and how many requests A held open. Embedded database by default; DATABASE_URL for PostgreSQL.
// BENCH_FAIRNESS_LIMIT_S (default 60) bounds the wait for B; SVC_WEBHOOK_TIMEOUT_MS applies (default 10 s).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.ts';
import {
  createTenant,
  ctxFor,
  futureClock,
  openTestDb,
  publishEvent,
  startWorker,
  webhookConfig,
} from '../src/modules/webhooks/__tests__/support.ts';
import { createEndpoint } from '../src/modules/webhooks/index.ts';

const limitMs = Number(process.env.BENCH_FAIRNESS_LIMIT_S ?? 60) * 1000;
const timeoutMs = loadConfig({ ...process.env, SVC_ENV: 'test' }).webhookTimeoutMs;

function listen(handler: http.RequestListener): Promise<{ url: string; server: http.Server }> {
  const server = http.createServer(handler);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }),
    ),
  );
}

let open = 0;
let peakOpen = 0;
const hanging = await listen((req) => {
  open += 1;
  peakOpen = Math.max(peakOpen, open);
  req.socket.on('close', () => {
    open -= 1;
  });
  req.resume();
});
const receivedAt = new Map<string, number>();
const healthy = await listen((req, res) => {
  req.resume();
  req.on('end', () => {
    receivedAt.set(String(req.headers['x-svc-delivery']), Date.now());
    res.writeHead(200).end('ok');
  });
});

const db = await openTestDb();
const config = webhookConfig({ webhookTimeoutMs: timeoutMs, webhookRetryScheduleMs: [1000, 5000, 30_000] });
const tenantA = await createTenant(db);
const tenantB = await createTenant(db);
for (let i = 0; i < 10; i++) {
  await createEndpoint(ctxFor(db, tenantA, config), {
    url: `${hanging.url}/a${i}`,
    secret: 'receiver-secret-0001',
  });
}
await createEndpoint(ctxFor(db, tenantB, config), {
  url: `${healthy.url}/b`,
  secret: 'receiver-secret-0001',
});
const worker = startWorker({ db, clock: futureClock, config, tenantIds: [tenantA, tenantB] });

for (let i = 0; i < 100; i++) await publishEvent(db, tenantA, 'room.created', { i });
worker.wake();
// Let A's deliveries take what they can first, as in the report.
while (peakOpen === 0) await new Promise((resolve) => setTimeout(resolve, 10));
await new Promise((resolve) => setTimeout(resolve, 200));
const publishedAt = new Map<string, number>();
for (let i = 0; i < 20; i++) {
  const { deliveryIds } = await publishEvent(db, tenantB, 'room.created', { i });
  for (const id of deliveryIds) publishedAt.set(id, Date.now());
  worker.wake();
}
const started = Date.now();
while (receivedAt.size < publishedAt.size && Date.now() - started < limitMs) {
  await new Promise((resolve) => setTimeout(resolve, 20));
}
const latencies = [...publishedAt]
  .map(([id, at]) => (receivedAt.has(id) ? (receivedAt.get(id) ?? 0) - at : Number.POSITIVE_INFINITY))
  .sort((a, b) => a - b);
const pct = (p: number) =>
  latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
const show = (v: number | undefined) =>
  v === undefined || !Number.isFinite(v) ? `> ${limitMs / 1000} s` : `${v} ms`;
console.log(
  `${db.kind}: attempt timeout ${timeoutMs} ms; tenant A peak open requests ${peakOpen}, open now ${open}; ` +
    `tenant B delivered ${receivedAt.size}/${publishedAt.size}: p50 ${show(pct(50))}, p90 ${show(pct(90))}, max ${show(latencies.at(-1))}`,
);
await worker.stop({ graceMs: 0 });
hanging.server.closeAllConnections();
hanging.server.close();
healthy.server.close();
await db.close();
