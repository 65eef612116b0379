// `npm run bench:sync`: 200 y-websocket clients on 20 shared Yjs documents (10 per document) send small
// updates at a fixed rate; each update is relayed to the 9 other clients of its document. Measured: relayed
// updates per second, latency from the sender's send to each other client's receipt (p50/p99), memory per
// open document and per idle connection; through the service (auth, append to the database before relay,
// the backplane) on the embedded database and on PostgreSQL + Redis, against a bare Yjs relay built from
// the same `y-protocols` functions (no auth, no persistence) in the same run. Loopback only (127.0.0.1);
// the clients run in a child process, so the server measured shares no event loop with its load.
//
// Settings: BENCH_SYNC_CLIENTS (200), BENCH_SYNC_DOCS (20), BENCH_SYNC_RATE (updates/s offered in the
// paced phase, 400), BENCH_SYNC_STRESS_RATE (updates/s of a shorter second phase, 2000; 0 skips it),
// BENCH_DURATION_S (paced phase, 8 s; the stress phase lasts half as long), BENCH_ONLY (embedded | postgres),
// BENCH_PG_URL (the PostgreSQL server, default postgres://postgres@127.0.0.1:5432/postgres: a throwaway
// database is made there), BENCH_REDIS_URL (default redis://127.0.0.1:6379; `none`: PostgreSQL alone).
// Each phase is bounded (it waits at most 3 s of silence for stragglers), so a run takes about a minute.

import { fork } from 'node:child_process';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import pg from 'pg';
import WebSocket, { WebSocketServer } from 'ws';
import * as awarenessProtocol from 'y-protocols/awareness';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import { memory, nextReport } from './lib/child-reports.ts';
import { machineLine } from './lib/compare.ts';
import { type ServiceTarget, startService } from './lib/targets.ts';
import { createBenchTenant } from './lib/tenant.ts';
import { withThrowawayDatabase } from './lib/throwaway-db.ts';

function setting(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name}: expected a whole number, got ${raw}`);
  return value;
}

const CLIENTS = setting('BENCH_SYNC_CLIENTS', 200);
const DOCS = setting('BENCH_SYNC_DOCS', 20);
const RATE = setting('BENCH_SYNC_RATE', 400);
const STRESS_RATE = setting('BENCH_SYNC_STRESS_RATE', 2000);
const SECONDS = setting('BENCH_DURATION_S', 8);
const PHASES: PhasePlan[] = [
  { name: `${RATE} upd/s`, rate: RATE, seconds: SECONDS },
  ...(STRESS_RATE > 0
    ? [{ name: `${STRESS_RATE} upd/s`, rate: STRESS_RATE, seconds: Math.max(1, Math.round(SECONDS / 2)) }]
    : []),
];
/** No child report may take longer than this. */
const REPORT_DEADLINE_MS = 60_000;
/** Messages of the y-websocket protocol. */
const MESSAGE_SYNC = 0;
const MESSAGE_AWARENESS = 1;
/**
 * Each update carries `#S<phase>:<performance.now() at send>:<sender>#` as a string value: receivers find
 * it by bytes. A sender's own update coming back (as the stock y-websocket server sends it) is no delivery.
 */
const MARK = Buffer.from('#S');
const HASH = 0x23;

// ---------------------------------------------------------------------------------------------------------
// Parent <-> client process messages.

interface PhasePlan {
  name: string;
  /** Updates per second over all clients, spread evenly, round robin. */
  rate: number;
  seconds: number;
}

interface PhaseResult {
  name: string;
  rate: number;
  sent: number;
  /** Updates received by clients other than their sender. */
  delivered: number;
  expected: number;
  /** From the first send to the last delivery. */
  seconds: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Sockets the server closed during the phase. */
  closed: number;
}

type Command =
  | { kind: 'connect'; urls: string[]; first: number }
  | { kind: 'run'; phases: PhasePlan[] }
  | { kind: 'exit' };

type Report =
  | { kind: 'connected' }
  | { kind: 'result'; phases: PhaseResult[] }
  | { kind: 'failed'; message: string };

// ---------------------------------------------------------------------------------------------------------
// The client process: plain `ws` sockets speaking y-websocket, each with a Y.Doc of its own.

interface Client {
  index: number;
  socket: WebSocket;
  doc: Y.Doc;
  /** Key of its own entry in the document's map. */
  key: string;
}

interface Phase {
  latencies: Float64Array;
  delivered: number;
  lastDeliveryAt: number;
}

const clients: Client[] = [];
const phases: Phase[] = [];
let closedDuring = 0;

function syncUpdateFrame(update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE_SYNC);
  syncProtocol.writeUpdate(encoder, update);
  return encoding.toUint8Array(encoder);
}

/** Every stamp in a frame the server sent (sync step 2 or update): latency of each delivery. */
function onFrame(data: Buffer, receiver: number): void {
  const now = performance.now();
  for (let at = data.indexOf(MARK); at >= 0; at = data.indexOf(MARK, at + 2)) {
    const end = data.indexOf(HASH, at + 2);
    if (end < 0) return;
    const [phaseText, sentText, senderText] = data.toString('latin1', at + 2, end).split(':');
    const phase = phases[Number(phaseText)];
    if (phase === undefined || sentText === undefined || Number(senderText) === receiver) continue;
    if (phase.delivered < phase.latencies.length) phase.latencies[phase.delivered] = now - Number(sentText);
    phase.delivered += 1;
    phase.lastDeliveryAt = now;
  }
}

async function openClient(url: string, index: number): Promise<Client> {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  const doc = new Y.Doc();
  const client: Client = { index, socket, doc, key: `c${index}` };
  doc.on('update', (update: Uint8Array) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(syncUpdateFrame(update));
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
    socket.once('unexpected-response', (_request, response: IncomingMessage) =>
      reject(new Error(`upgrade refused: ${response.statusCode}`)),
    );
  });
  socket.on('message', (data: Buffer) => onFrame(data, index));
  socket.on('close', () => {
    closedDuring += 1;
  });
  // As the stock provider does on open: its sync step 1 (the server answers with step 2).
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE_SYNC);
  syncProtocol.writeSyncStep1(encoder, doc);
  socket.send(encoding.toUint8Array(encoder));
  return client;
}

function percentileOf(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function runPhases(plans: PhasePlan[]): Promise<PhaseResult[]> {
  const results: PhaseResult[] = [];
  const othersPerDoc = CLIENTS / DOCS - 1;
  for (const [index, plan] of plans.entries()) {
    const total = Math.round(plan.rate * plan.seconds);
    const expected = total * othersPerDoc;
    const phase: Phase = { latencies: new Float64Array(expected), delivered: 0, lastDeliveryAt: 0 };
    phases[index] = phase;
    closedDuring = 0;
    const startedAt = performance.now();
    let sent = 0;
    while (sent < total) {
      const due = Math.min(total, Math.floor(((performance.now() - startedAt) * plan.rate) / 1000));
      for (; sent < due; sent++) {
        const client = clients[sent % clients.length];
        client?.doc
          .getMap('m')
          .set(client.key, `#S${index}:${performance.now().toFixed(3)}:${client.index}#`);
      }
      await sleep(2);
    }
    // Stragglers: until everything arrived, or 3 s without any delivery.
    for (let quiet = 0; phase.delivered < expected && quiet < 30; ) {
      const before = phase.delivered;
      await sleep(100);
      quiet = phase.delivered === before ? quiet + 1 : 0;
    }
    const sorted = phase.latencies.subarray(0, Math.min(phase.delivered, expected)).sort();
    results.push({
      name: plan.name,
      rate: plan.rate,
      sent,
      delivered: phase.delivered,
      expected,
      seconds: (phase.lastDeliveryAt - startedAt) / 1000,
      p50Ms: percentileOf(sorted, 50),
      p99Ms: percentileOf(sorted, 99),
      maxMs: percentileOf(sorted, 100),
      closed: closedDuring,
    });
    await sleep(300);
  }
  return results;
}

function clientProcess(): void {
  const report = (message: Report) => process.send?.(message);
  process.on('message', (command: Command) => {
    const failed = (error: unknown) =>
      report({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
    if (command.kind === 'connect') {
      (async () => {
        for (let at = 0; at < command.urls.length; at += 25) {
          const batch = command.urls.slice(at, at + 25);
          clients.push(
            ...(await Promise.all(batch.map((url, i) => openClient(url, command.first + at + i)))),
          );
        }
        report({ kind: 'connected' });
      })().catch(failed);
    } else if (command.kind === 'run') {
      runPhases(command.phases).then((results) => report({ kind: 'result', phases: results }), failed);
    } else {
      for (const client of clients) {
        client.socket.terminate();
        client.doc.destroy();
      }
      process.disconnect();
    }
  });
}

// ---------------------------------------------------------------------------------------------------------
// The baseline: a bare Yjs relay from the same y-protocols functions, no auth, no persistence, no limits.

interface BareDocument {
  doc: Y.Doc;
  awareness: awarenessProtocol.Awareness;
  sockets: Set<WebSocket>;
}

async function startBareRelay(): Promise<{ url: string; close(): Promise<void> }> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const documents = new Map<string, BareDocument>();
  const documentOf = (name: string): BareDocument => {
    let document = documents.get(name);
    if (document === undefined) {
      const doc = new Y.Doc();
      const awareness = new awarenessProtocol.Awareness(doc);
      awareness.setLocalState(null);
      const created: BareDocument = { doc, awareness, sockets: new Set() };
      doc.on('update', (update: Uint8Array, origin: unknown) => {
        const frame = syncUpdateFrame(update);
        for (const socket of created.sockets) if (socket !== origin) socket.send(frame);
      });
      documents.set(name, created);
      document = created;
    }
    return document;
  };
  server.on('connection', (socket, request) => {
    const document = documentOf(request.url ?? '/');
    document.sockets.add(socket);
    const hello = encoding.createEncoder();
    encoding.writeVarUint(hello, MESSAGE_SYNC);
    syncProtocol.writeSyncStep1(hello, document.doc);
    socket.send(encoding.toUint8Array(hello));
    socket.on('message', (data: Buffer) => {
      const decoder = decoding.createDecoder(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      const type = decoding.readVarUint(decoder);
      if (type === MESSAGE_SYNC) {
        const reply = encoding.createEncoder();
        encoding.writeVarUint(reply, MESSAGE_SYNC);
        syncProtocol.readSyncMessage(decoder, reply, document.doc, socket);
        if (encoding.length(reply) > 1) socket.send(encoding.toUint8Array(reply));
      } else if (type === MESSAGE_AWARENESS) {
        awarenessProtocol.applyAwarenessUpdate(
          document.awareness,
          decoding.readVarUint8Array(decoder),
          socket,
        );
      }
    });
    socket.on('close', () => document.sockets.delete(socket));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        for (const document of documents.values()) {
          document.awareness.destroy();
          document.doc.destroy();
        }
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------------------
// The parent: targets, memory, the table.

interface TargetResult {
  name: string;
  /** Heap + external (and RSS) of this process per open document and per idle connection, in KiB. */
  heapPerDocumentKiB: number;
  heapPerConnectionKiB: number;
  rssPerConnectionKiB: number;
  phases: PhaseResult[];
  /** When the phases ran, in µs of the monotonic clock (the time base of a --cpu-prof profile). */
  window: [number, number];
}

/**
 * Connects the clients in two steps (one per document, then the rest) to tell the memory of an open
 * document from that of a connection, then runs the phases. `urls[i]` is client i's address; client i
 * edits document i % DOCS.
 */
async function measure(name: string, urls: string[]): Promise<TargetResult> {
  const child = fork(import.meta.filename, ['clients'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const send = (command: Command) => child.send(command);
  try {
    await sleep(500);
    const before = memory();
    let connected = nextReport<Report, 'connected'>(child, 'connected', REPORT_DEADLINE_MS);
    send({ kind: 'connect', urls: urls.slice(0, DOCS), first: 0 });
    await connected;
    await sleep(500);
    const withDocs = memory();
    connected = nextReport<Report, 'connected'>(child, 'connected', REPORT_DEADLINE_MS);
    send({ kind: 'connect', urls: urls.slice(DOCS), first: DOCS });
    await connected;
    await sleep(500);
    const idle = memory();
    const rest = urls.length - DOCS;
    const heapPerConnection = (idle.heap - withDocs.heap) / rest;
    const heapPerDocument = (withDocs.heap - before.heap - DOCS * heapPerConnection) / DOCS;
    const result = nextReport<Report, 'result'>(child, 'result', REPORT_DEADLINE_MS);
    const from = monotonicMicros();
    send({ kind: 'run', phases: PHASES });
    const { phases: measured } = (await result) as Extract<Report, { kind: 'result' }>;
    const window: [number, number] = [from, monotonicMicros()];
    return {
      name,
      heapPerDocumentKiB: heapPerDocument / 1024,
      heapPerConnectionKiB: heapPerConnection / 1024,
      rssPerConnectionKiB: (idle.rss - withDocs.rss) / rest / 1024,
      phases: measured,
      window,
    };
  } finally {
    if (child.connected) send({ kind: 'exit' });
    await sleep(200);
    child.kill();
  }
}

function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * What the PostgreSQL server gives before any service code: 200 one-row INSERTs committed one after the
 * other (a floor under the latency of anything persisted before it is relayed).
 */
async function commitLatency(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('create table bench_commit (id bigint generated always as identity, data bytea)');
    const times: number[] = [];
    const data = Buffer.alloc(60, 7);
    for (let i = 0; i < 200; i++) {
      const at = performance.now();
      await client.query('insert into bench_commit (data) values ($1)', [data]);
      times.push(performance.now() - at);
    }
    times.sort((a, b) => a - b);
    const at = (p: number) => (times[Math.floor((p / 100) * (times.length - 1))] ?? Number.NaN).toFixed(1);
    return `PostgreSQL alone, one-row INSERT commits one after another: p50 ${at(50)} ms, p99 ${at(99)} ms, max ${at(100)} ms`;
  } finally {
    await client.end();
  }
}

/** The client order: client i on document i % DOCS. */
function clientUrls(urlOfDoc: (doc: number) => string, tokens?: string[]): string[] {
  return Array.from({ length: CLIENTS }, (_, i) => {
    const token = tokens?.[i];
    const url = urlOfDoc(i % DOCS);
    return token === undefined ? url : `${url}?token=${encodeURIComponent(token)}`;
  });
}

async function prepare(service: ServiceTarget): Promise<{ rooms: string[]; tokens: string[] }> {
  const { apiKey } = await createBenchTenant(service.db);
  const headers = { authorization: `Bearer ${apiKey}` };
  const stamp = Date.now().toString(36);
  const rooms: string[] = [];
  for (let i = 0; i < DOCS; i++) {
    const res = await service.app.inject({
      method: 'POST',
      url: '/v1/rooms',
      headers,
      payload: { id: `sync-${stamp}-${i}` },
    });
    if (res.statusCode !== 201) throw new Error(`room: ${res.statusCode} ${res.body}`);
    rooms.push(res.json<{ id: string }>().id);
  }
  const tokens: string[] = [];
  for (let at = 0; at < CLIENTS; at += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, CLIENTS - at) }, async (_, i) => {
        const res = await service.app.inject({
          method: 'POST',
          url: '/v1/runtime/connect',
          headers,
          payload: {
            modules: ['sync'],
            actor: { type: 'end_user', id: `bench:user-${at + i}`, identityProvider: 'bench' },
          },
        });
        if (res.statusCode !== 201) throw new Error(`connect: ${res.statusCode} ${res.body}`);
        return res.json<{ token: string }>().token;
      }),
    );
    tokens.push(...batch);
  }
  return { rooms, tokens };
}

async function measureService(name: string, env: Record<string, string | undefined>): Promise<TargetResult> {
  const service = await startService({ LOG_LEVEL: 'error', ...env });
  try {
    const { rooms, tokens } = await prepare(service);
    const ws = service.baseUrl.replace('http://', 'ws://');
    const before = service.app.services.groupCommit.written('sync.append');
    const result = await measure(
      name,
      clientUrls((doc) => `${ws}/v1/sync/${rooms[doc]}`, tokens),
    );
    const after = service.app.services.groupCommit.written('sync.append');
    const groups = after.groups - before.groups;
    const items = after.items - before.items;
    process.stdout.write(
      `  ${name}: ${items} appends in ${groups} group commits (${(items / (groups || 1)).toFixed(1)} per group)\n`,
    );
    return result;
  } finally {
    await service.close();
  }
}

async function redisReachable(url: string): Promise<boolean> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1000 });
  try {
    await redis.connect();
    await redis.ping();
    return true;
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

function printResults(bare: TargetResult, targets: TargetResult[]): void {
  const widths = [26, 13, 12, 13, 10, 9, 9, 9, 7];
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 10)).join('');
  process.stdout.write(
    `\n${line(['target', 'phase', 'relayed*', 'relayed/s', 'complete', 'p50 ms', 'p99 ms', 'max ms', 'closed'])}\n`,
  );
  for (const [i] of PHASES.entries()) {
    for (const target of [bare, ...targets]) {
      const p = target.phases[i];
      if (p === undefined) continue;
      process.stdout.write(
        `${line([
          target.name,
          p.name,
          String(p.delivered),
          (p.delivered / (p.seconds || 1)).toFixed(0),
          `${((100 * p.delivered) / (p.expected || 1)).toFixed(1)}%`,
          p.p50Ms.toFixed(1),
          p.p99Ms.toFixed(1),
          p.maxMs.toFixed(1),
          String(p.closed),
        ])}\n`,
      );
    }
  }
  process.stdout.write(
    `  * updates received by the ${CLIENTS / DOCS - 1} other clients of the sender's document (${PHASES.map((p) => `${p.rate} x ${p.seconds} s`).join(', then ')} offered)\n\n`,
  );
  for (const target of targets) {
    for (const [i, plan] of PHASES.entries()) {
      const b = bare.phases[i];
      const s = target.phases[i];
      if (b === undefined || s === undefined) continue;
      const ratio = s.delivered / (s.seconds || 1) / (b.delivered / (b.seconds || 1));
      process.stdout.write(
        `ratio ${target.name} / bare relay, relayed per second at ${plan.name}: ${ratio.toFixed(2)}` +
          ` (p50 ${s.p50Ms.toFixed(1)} vs ${b.p50Ms.toFixed(1)} ms, p99 ${s.p99Ms.toFixed(1)} vs ${b.p99Ms.toFixed(1)} ms)\n`,
      );
    }
  }
  if (process.execArgv.some((arg) => arg.startsWith('--cpu-prof'))) {
    process.stdout.write(
      '\nphases of each target, µs of the monotonic clock (to cut its window from the profile):\n',
    );
    for (const target of [bare, ...targets]) {
      process.stdout.write(`  window ${target.window[0]} ${target.window[1]} ${target.name}\n`);
    }
  }
  process.stdout.write('\nmemory of the server process (heap + external; RSS is noisier):\n');
  for (const target of [bare, ...targets]) {
    process.stdout.write(
      `  ${target.name.padEnd(26)} per open (empty) document ${target.heapPerDocumentKiB.toFixed(1)} KiB, ` +
        `per idle connection ${target.heapPerConnectionKiB.toFixed(1)} KiB heap, ${target.rssPerConnectionKiB.toFixed(1)} KiB RSS\n`,
    );
  }
}

async function main(): Promise<void> {
  if (CLIENTS % DOCS !== 0 || CLIENTS <= DOCS) {
    throw new Error('BENCH_SYNC_CLIENTS must be a multiple of BENCH_SYNC_DOCS, and larger');
  }
  const started = performance.now();
  process.stdout.write(
    `bench:sync  ${CLIENTS} clients on ${DOCS} documents (${CLIENTS / DOCS} each), small updates ` +
      `(one Y.Map entry) at ${PHASES.map((p) => `${p.rate}/s for ${p.seconds} s`).join(', then ')}; loopback, clients in a child process\n` +
      `  ${machineLine()}\n`,
  );
  if ((globalThis as { gc?: unknown }).gc === undefined) {
    process.stdout.write('  (run with --expose-gc for steadier memory figures)\n');
  }
  const relay = await startBareRelay();
  let bare: TargetResult;
  try {
    bare = await measure(
      'bare Yjs relay',
      clientUrls((doc) => `${relay.url}/doc-${doc}`),
    );
  } finally {
    await relay.close();
  }
  const targets: TargetResult[] = [];
  let commitLine: string | undefined;
  const only = process.env.BENCH_ONLY;
  if (only !== 'postgres') targets.push(await measureService('svc, embedded (PGlite)', {}));
  if (only !== 'embedded') {
    const redisSetting = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
    const redisUrl =
      redisSetting !== 'none' && (await redisReachable(redisSetting)) ? redisSetting : undefined;
    if (redisUrl === undefined)
      process.stdout.write(`\nRedis not used (${redisSetting}): PostgreSQL alone\n`);
    await withThrowawayDatabase('svc_bench_sync', async (url) => {
      commitLine = await commitLatency(url);
      targets.push(
        await measureService(redisUrl === undefined ? 'svc, PostgreSQL' : 'svc, PostgreSQL + Redis', {
          DATABASE_URL: url,
          REDIS_URL: redisUrl,
          SVC_REDIS_PREFIX: `svc-bench-sync:${Date.now().toString(36)}:`,
        }),
      );
    });
  }
  printResults(bare, targets);
  if (commitLine !== undefined) process.stdout.write(`${commitLine}\n`);
  process.stdout.write(`\n(${((performance.now() - started) / 1000).toFixed(0)} s in all)\n`);
}

if (process.argv[2] === 'clients') {
  clientProcess();
} else {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`bench:sync failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    },
  );
}
