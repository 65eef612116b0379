// `npm run bench:fanout`: one room, 1,000 subscribers, chat messages published at a fixed rate through the
// service's WebSocket gateway (auth, database, event bus, backplane, per-room ordering), against a bare `ws`
// broadcast server in the same run. Prints delivered messages/s, publish-to-receive latency p50/p99 (of a
// sample of the frames), the CPU of the server and of each client process (and which one was the limit),
// and idle memory per connection, plus the ratios. Then a crowd: many sockets join one room at the same
// moment while another tenant calls GET /v1/me; the join and /v1/me latencies, and memory per joined idle
// socket. Loopback only; the clients run in processes of their own (bench/lib/fanout-clients.ts).
//
// BENCH_FANOUT_SUBSCRIBERS (1000), BENCH_FANOUT_RATE (100 msg/s), BENCH_DURATION_S (10), BENCH_FANOUT_WARMUP_S
// (3 s at the rate first, printed as a phase of its own: code compiled, the database's plans made, as on a
// server that has been up a while; 0 skips it),
// BENCH_FANOUT_STRESS_RATE (300 msg/s, BENCH_FANOUT_STRESS_S 5 s; 0 skips it), BENCH_FANOUT_CLIENTS (2
// client processes), BENCH_FANOUT_SAMPLE (every 10th frame's latency is read), BENCH_FANOUT_CROWD (1000
// sockets; 0 skips the crowd), BENCH_FANOUT_ME_RATE (50 GET /v1/me per second during the crowd),
// BENCH_PRESENCE_DIFF (1: the crowd's joins ask for one `presence.diff` per tick; 0: one frame per change),
// BENCH_FANOUT_PROFILE (a folder: CPU profile of the service's hot run, top self-time frames printed),
// BENCH_REDIS_URL (unset: in-memory backplane), BENCH_DATABASE_URL (unset: in-memory PGlite; set: a
// PostgreSQL database the run may write to).
import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { newKeyEntry } from '../src/core/secrets/keys.ts';
import { startBareBroadcast } from './lib/bare-broadcast.ts';
import { memory, nextReport } from './lib/child-reports.ts';
import { machineLine } from './lib/compare.ts';
import type { CrowdCommand, CrowdResult } from './lib/fanout-crowd.ts';
import { startProfile, topFrames, writeHeapSnapshot } from './lib/fanout-profile.ts';
import type { Command, PhasePart, PhasePlan, PhaseResult, Report } from './lib/fanout-protocol.ts';
import { type ServiceTarget, startService } from './lib/targets.ts';
import { createBenchTenant } from './lib/tenant.ts';

function setting(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name}: expected a whole number, got ${raw}`);
  return value;
}

const SUBSCRIBERS = setting('BENCH_FANOUT_SUBSCRIBERS', 1000);
const RATE = setting('BENCH_FANOUT_RATE', 100);
const SECONDS = setting('BENCH_DURATION_S', 10);
const WARMUP_SECONDS = setting('BENCH_FANOUT_WARMUP_S', 3);
const STRESS_RATE = setting('BENCH_FANOUT_STRESS_RATE', 300);
const STRESS_SECONDS = setting('BENCH_FANOUT_STRESS_S', 5);
const CLIENTS = Math.max(1, setting('BENCH_FANOUT_CLIENTS', 2));
const SAMPLE_EVERY = Math.max(1, setting('BENCH_FANOUT_SAMPLE', 10));
const CROWD = setting('BENCH_FANOUT_CROWD', 1000);
const ME_RATE = setting('BENCH_FANOUT_ME_RATE', 50);
const PROFILE_DIR = process.env.BENCH_FANOUT_PROFILE;
/** Each publisher connection stays well inside the gateway's per-connection rate limit (20/s). */
const PER_PUBLISHER = 10;
const PUBLISHERS = Math.ceil(Math.max(RATE, STRESS_RATE) / PER_PUBLISHER);
const PHASES: PhasePlan[] = [
  ...(WARMUP_SECONDS > 0 ? [{ name: 'warm-up', rate: RATE, seconds: WARMUP_SECONDS }] : []),
  { name: `${RATE} msg/s`, rate: RATE, seconds: SECONDS },
  ...(STRESS_RATE > 0 ? [{ name: `${STRESS_RATE} msg/s`, rate: STRESS_RATE, seconds: STRESS_SECONDS }] : []),
];
const ROOM = `bench-${Date.now()}`;
/** Nothing here may run longer than this. */
const TARGET_DEADLINE_MS = 5 * 60_000;
/** A client process at this share of a core or more was (close to) the limit of what was measured. */
const SATURATED = 0.85;
/** The whole room fits on one instance (the default cap is 500 connections per room). */
const SERVICE_ENV = {
  // One key for the run: the crowd's service opens the same PostgreSQL database as the first one.
  SVC_ENCRYPTION_KEY: process.env.SVC_ENCRYPTION_KEY ?? newKeyEntry(Date.now()),
  REDIS_URL: process.env.BENCH_REDIS_URL,
  DATABASE_URL: process.env.BENCH_DATABASE_URL,
  LOG_LEVEL: 'error',
  SVC_REALTIME_MAX_ROOM_MEMBERS: String(Math.max(SUBSCRIBERS + PUBLISHERS, CROWD) + 10),
};

interface TargetResult {
  name: string;
  rssPerConnectionKiB: number;
  heapPerConnectionKiB: number;
  /** Per connection of the client processes after the first (which warmed everything up). */
  marginal: { rssKiB: number; heapKiB: number };
  phases: PhaseResult[];
  profile?: string[];
}

const cores = (usage: NodeJS.CpuUsage, ms: number) => (usage.user + usage.system) / 1000 / ms;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function merge(
  plan: PhasePlan,
  expected: number,
  parts: PhasePart[],
  serverCpu: number,
  serverCpuUs: number,
): PhaseResult {
  const samples = parts.flatMap((p) => p.samples).sort((a, b) => a - b);
  const startedAt = Math.min(...parts.filter((p) => p.published > 0).map((p) => p.startedAt));
  const lastDeliveryAt = Math.max(...parts.map((p) => p.lastDeliveryAt));
  const sum = (pick: (p: PhasePart) => number) => parts.reduce((n, p) => n + pick(p), 0);
  return {
    name: plan.name,
    rate: plan.rate,
    published: sum((p) => p.published),
    delivered: sum((p) => p.delivered),
    expected,
    seconds:
      Number.isFinite(startedAt) && lastDeliveryAt > startedAt ? (lastDeliveryAt - startedAt) / 1000 : 0,
    p50Ms: percentile(samples, 50),
    p99Ms: percentile(samples, 99),
    maxMs: samples.at(-1) ?? Number.NaN,
    samples: samples.length,
    closed: sum((p) => p.closed),
    refused: sum((p) => p.refused),
    clientCpu: parts.map((p) => p.cpu),
    serverCpu,
    serverCpuUsPerDelivery:
      serverCpuUs /
      Math.max(
        1,
        sum((p) => p.delivered),
      ),
    loopDelayP99Ms: Math.max(...parts.map((p) => p.loopDelayP99Ms)),
  };
}

/** `count` subscribers spread over the client processes; the first process also holds the publishers. */
function shares(count: number): number[] {
  return Array.from(
    { length: CLIENTS },
    (_, i) => Math.floor(count / CLIENTS) + (i < count % CLIENTS ? 1 : 0),
  );
}

async function measureTarget(
  name: string,
  url: string,
  tokens: string[] | undefined,
  profileName?: string,
): Promise<TargetResult> {
  const children: ChildProcess[] = Array.from({ length: CLIENTS }, () =>
    fork(path.join(import.meta.dirname, 'lib/fanout-clients.ts'), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  const send = (child: ChildProcess, command: Command) => child.send(command);
  const split = shares(SUBSCRIBERS);
  try {
    // Let the setup's garbage go first, so the RSS delta is the connections' (RSS stays noisy; heap is the steadier figure).
    memory();
    await sleep(1000);
    const before = memory();
    let warm = before;
    let from = PUBLISHERS;
    for (const [i, child] of children.entries()) {
      const subscribers = split[i] ?? 0;
      const publishers = i === 0 ? PUBLISHERS : 0;
      const mine =
        tokens === undefined
          ? undefined
          : [...(i === 0 ? tokens.slice(0, PUBLISHERS) : []), ...tokens.slice(from, from + subscribers)];
      from += subscribers;
      const connected = nextReport<Report, 'connected'>(child, 'connected', TARGET_DEADLINE_MS);
      send(child, {
        kind: 'connect',
        url,
        room: ROOM,
        tokens: mine,
        subscribers,
        publishers,
        sampleEvery: SAMPLE_EVERY,
      });
      await connected;
      // The first process's connections warm every path up (code compiled once, caches): the others show
      // what one more connection costs.
      if (i === 0) {
        await sleep(500);
        warm = memory();
      }
    }
    await sleep(1000);
    const idle = memory();
    const stop =
      PROFILE_DIR === undefined || profileName === undefined
        ? undefined
        : await startProfile(PROFILE_DIR, profileName);
    const phases: PhaseResult[] = [];
    for (const [index, plan] of PHASES.entries()) {
      const messages = Math.round(plan.rate * plan.seconds);
      const cpuBefore = process.cpuUsage();
      const wallBefore = performance.now();
      const parts = await Promise.all(
        children.map((child, i) => {
          const part = nextReport<Report, 'phase'>(child, 'phase', TARGET_DEADLINE_MS);
          send(child, { kind: 'phase', index, plan, expected: messages * (split[i] ?? 0) });
          return part;
        }),
      );
      const used = process.cpuUsage(cpuBefore);
      const serverCpu = cores(used, performance.now() - wallBefore);
      const merged = merge(
        plan,
        messages * SUBSCRIBERS,
        parts.map((p) => p.part),
        serverCpu,
        used.user + used.system,
      );
      phases.push(merged);
      await sleep(500);
    }
    const file = await stop?.();
    return {
      name,
      rssPerConnectionKiB: (idle.rss - before.rss) / (SUBSCRIBERS + PUBLISHERS) / 1024,
      heapPerConnectionKiB: (idle.heap - before.heap) / (SUBSCRIBERS + PUBLISHERS) / 1024,
      marginal: {
        rssKiB: (idle.rss - warm.rss) / Math.max(1, SUBSCRIBERS - (split[0] ?? 0)) / 1024,
        heapKiB: (idle.heap - warm.heap) / Math.max(1, SUBSCRIBERS - (split[0] ?? 0)) / 1024,
      },
      phases,
      ...(file === undefined ? {} : { profile: [`profile ${file}`, ...topFrames(file)] }),
    };
  } finally {
    for (const child of children) if (child.connected) send(child, { kind: 'exit' });
    await sleep(200);
    for (const child of children) child.kill();
  }
}

/** One session token per actor (rooms, presence, chat), minted through the app 25 at a time. */
async function mintTokens(
  service: ServiceTarget,
  apiKey: string,
  count: number,
  prefix: string,
): Promise<string[]> {
  const headers = { authorization: `Bearer ${apiKey}` };
  const tokens: string[] = [];
  for (let at = 0; at < count; at += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, count - at) }, async (_, i) => {
        const res = await service.app.inject({
          method: 'POST',
          url: '/v1/runtime/connect',
          headers,
          payload: {
            modules: ['rooms', 'presence', 'chat'],
            actor: { type: 'end_user', id: `bench:${prefix}-${at + i}`, identityProvider: 'bench' },
          },
        });
        if (res.statusCode !== 201) throw new Error(`connect: ${res.statusCode} ${res.body}`);
        return (res.json() as { token: string }).token;
      }),
    );
    tokens.push(...batch);
  }
  return tokens;
}

/** A tenant, its room, and one session token per connection (publishers first). */
async function prepareService(
  service: ServiceTarget,
  room: string,
  count: number,
): Promise<{ tokens: string[]; apiKey: string }> {
  const { apiKey } = await createBenchTenant(service.db);
  const headers = { authorization: `Bearer ${apiKey}` };
  const res = await service.app.inject({ method: 'POST', url: '/v1/rooms', headers, payload: { id: room } });
  if (res.statusCode !== 201) throw new Error(`room: ${res.statusCode} ${res.body}`);
  return { tokens: await mintTokens(service, apiKey, count, room), apiKey };
}

/** Which side was the limit of a phase: a client process near a full core means the figures are the clients'. */
function limitOf(p: PhaseResult): string {
  const client = Math.max(...p.clientCpu);
  if (client >= SATURATED) return `clients (a client process at ${(100 * client).toFixed(0)}% of a core)`;
  if (p.serverCpu >= SATURATED) return `server (${(100 * p.serverCpu).toFixed(0)}% of a core)`;
  return 'neither process saturated (the machine, or the waits)';
}

function printResults(bare: TargetResult, svc: TargetResult): void {
  const header = ['target', 'phase', 'offered/s', 'delivered/s', 'complete', 'p50 ms', 'p99 ms', 'max ms'];
  const more = ['closed', 'refused', 'server CPU', 'µs/delivery', 'client CPU', 'loop p99'];
  const widths = [9, 11, 11, 13, 10, 9, 9, 9, 8, 9, 12, 13, 14, 9];
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 10)).join('');
  const pct = (v: number) => `${(100 * v).toFixed(0)}%`;
  process.stdout.write(`\n${line([...header, ...more])}\n`);
  for (const [i] of PHASES.entries()) {
    for (const target of [bare, svc]) {
      const p = target.phases[i];
      if (p === undefined) continue;
      process.stdout.write(
        `${line([
          target.name,
          p.name,
          String(p.rate * SUBSCRIBERS),
          (p.delivered / (p.seconds || 1)).toFixed(0),
          `${((100 * p.delivered) / (p.expected || 1)).toFixed(1)}%`,
          p.p50Ms.toFixed(1),
          p.p99Ms.toFixed(1),
          p.maxMs.toFixed(1),
          String(p.closed),
          String(p.refused),
          pct(p.serverCpu),
          p.serverCpuUsPerDelivery.toFixed(2),
          p.clientCpu.map(pct).join('+'),
          `${p.loopDelayP99Ms.toFixed(0)} ms`,
        ])}\n`,
      );
    }
  }
  process.stdout.write(
    `(latencies from every ${SAMPLE_EVERY}th frame; server CPU: of one core, and CPU time per frame delivered (the steadier ` +
      'figure on a loaded machine); client CPU per client process; loop p99: the worst client event-loop delay)\n\n',
  );
  for (const [i, plan] of PHASES.entries()) {
    const b = bare.phases[i];
    const s = svc.phases[i];
    if (b === undefined || s === undefined) continue;
    const ratio = s.delivered / (s.seconds || 1) / (b.delivered / (b.seconds || 1));
    process.stdout.write(
      `ratio svc/bare delivered per second at ${plan.name}: ${ratio.toFixed(2)}` +
        ` (p99 ${s.p99Ms.toFixed(1)} ms vs ${b.p99Ms.toFixed(1)} ms); limit: bare ${limitOf(b)}; svc ${limitOf(s)}\n`,
    );
  }
  process.stdout.write(
    `idle memory per connection: bare ${bare.rssPerConnectionKiB.toFixed(1)} KiB RSS, ${bare.heapPerConnectionKiB.toFixed(1)} KiB heap; ` +
      `svc ${svc.rssPerConnectionKiB.toFixed(1)} KiB RSS, ${svc.heapPerConnectionKiB.toFixed(1)} KiB heap` +
      ' (svc connections joined the room with presence)\n' +
      `  each connection after the first client process's: bare ${bare.marginal.rssKiB.toFixed(1)} KiB RSS, ${bare.marginal.heapKiB.toFixed(1)} KiB heap; ` +
      `svc ${svc.marginal.rssKiB.toFixed(1)} KiB RSS, ${svc.marginal.heapKiB.toFixed(1)} KiB heap\n`,
  );
  if (svc.profile !== undefined)
    process.stdout.write(`\nsvc hot run, top self time:\n  ${svc.profile.join('\n  ')}\n`);
}

/** A fresh service: the crowd joins one room at once while another tenant calls GET /v1/me. */
async function crowd(): Promise<void> {
  const service = await startService(SERVICE_ENV);
  const child = fork(path.join(import.meta.dirname, 'lib/fanout-crowd.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const room = `crowd-${Date.now()}`;
    const { tokens } = await prepareService(service, room, CROWD);
    const other = await createBenchTenant(service.db);
    memory();
    await sleep(1000);
    const before = memory();
    const result = nextReport<CrowdResult | { kind: 'failed'; message: string }, 'crowd'>(
      child,
      'crowd',
      TARGET_DEADLINE_MS,
    );
    const stop = PROFILE_DIR === undefined ? undefined : await startProfile(PROFILE_DIR, 'svc-crowd');
    const command: CrowdCommand = {
      kind: 'crowd',
      baseUrl: service.baseUrl,
      room,
      tokens,
      otherApiKey: other.apiKey,
      meRate: ME_RATE,
    };
    const cpuBefore = process.cpuUsage();
    // The service's event loop (it runs in this process): how long the crowd kept it from everyone else.
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    child.send(command);
    const r = (await result) as CrowdResult;
    loop.disable();
    const used = process.cpuUsage(cpuBefore);
    const file = await stop?.();
    await sleep(1000);
    const idle = memory();
    const heap = process.env.BENCH_FANOUT_HEAP;
    if (heap !== undefined) await writeHeapSnapshot(heap);
    process.stdout.write(
      [
        '',
        `crowd: ${r.joins} sockets of one tenant upgraded first, then every join of one room sent at once` +
          ` (${r.presenceDiff ? 'asking for presence.diff' : 'one presence frame per change'}):`,
        `  joins p50 ${r.joinP50Ms.toFixed(0)} ms, p99 ${r.joinP99Ms.toFixed(0)} ms, max ${r.joinMaxMs.toFixed(0)} ms (all joined in ${r.joinsSeconds.toFixed(2)} s; crowd client CPU ${(100 * r.cpu).toFixed(0)}%)`,
        `  presence frames received by the crowd until the last joined: ${r.presenceFrames} (${(r.presenceBytes / 1e6).toFixed(1)} MB)`,
        `  server CPU from the upgrades to the last joined: ${((used.user + used.system) / 1e6).toFixed(2)} s (${((used.user + used.system) / 1000 / r.joins).toFixed(2)} ms per socket)`,
        `  service event-loop delay meanwhile: p50 ${(loop.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms, max ${(loop.max / 1e6).toFixed(1)} ms`,
        `  another tenant's GET /v1/me meanwhile (${ME_RATE}/s): ${r.me} answered, ${r.meFailed} failed, p50 ${r.meP50Ms.toFixed(1)} ms, p99 ${r.meP99Ms.toFixed(1)} ms, max ${r.meMaxMs.toFixed(1)} ms`,
        `  idle joined sockets: +${((idle.rss - before.rss) / r.joins / 1024).toFixed(1)} KiB RSS, +${((idle.heap - before.heap) / r.joins / 1024).toFixed(1)} KiB heap per socket`,
        ...(file === undefined
          ? []
          : [
              'svc during the joins, top self time:',
              `  profile ${file}`,
              ...topFrames(file).map((l) => `  ${l}`),
            ]),
        '',
      ].join('\n'),
    );
  } finally {
    if (child.connected) child.send({ kind: 'exit' });
    await sleep(200);
    child.kill();
    await service.close();
  }
}

async function main(): Promise<void> {
  process.stdout.write(
    `\nfan-out: 1 room, ${SUBSCRIBERS} subscribers (+${PUBLISHERS} publishers), ` +
      `${PHASES.map((p) => `${p.name} for ${p.seconds} s`).join(', then ')}; loopback, clients in ${CLIENTS} processes of their own\n` +
      `  backplane: ${process.env.BENCH_REDIS_URL === undefined ? 'in-memory' : 'Redis'}; database: ${process.env.BENCH_DATABASE_URL === undefined ? 'in-memory PGlite' : 'PostgreSQL'}\n` +
      `  ${machineLine()}\n`,
  );
  if ((globalThis as { gc?: unknown }).gc === undefined) {
    process.stdout.write('  (run with --expose-gc for steadier memory figures)\n');
  }
  if (SUBSCRIBERS > 0) {
    const bareServer = await startBareBroadcast();
    let bare: TargetResult;
    try {
      bare = await measureTarget('ws bare', bareServer.url, undefined);
    } finally {
      await bareServer.close();
    }
    const service = await startService(SERVICE_ENV);
    let svc: TargetResult;
    try {
      const { tokens } = await prepareService(service, ROOM, SUBSCRIBERS + PUBLISHERS);
      svc = await measureTarget(
        'svc',
        `${service.baseUrl.replace('http://', 'ws://')}/v1/realtime`,
        tokens,
        'svc-hot',
      );
    } finally {
      await service.close();
    }
    printResults(bare, svc);
  }
  if (CROWD > 0) await crowd();
  process.stdout.write(`  ${machineLine()}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench:fanout failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
