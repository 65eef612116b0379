// `npm run bench:fanout`: one room, 1,000 subscribers, chat messages published at a fixed rate through the
// service's WebSocket gateway (auth, database, event bus, backplane, per-room ordering), against a bare `ws`
// broadcast server in the same run. Prints delivered messages/s, publish-to-receive latency p50/p99 and
// idle memory per connection, plus the ratios. Loopback only; the clients run in a separate process.
//
// BENCH_FANOUT_SUBSCRIBERS (1000), BENCH_FANOUT_RATE (100 msg/s), BENCH_DURATION_S (10),
// BENCH_FANOUT_STRESS_RATE (300 msg/s, 5 s; 0 skips it), BENCH_REDIS_URL (unset: in-memory backplane),
// BENCH_DATABASE_URL (unset: in-memory PGlite; set: a PostgreSQL database the run may write to).
import { fork } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startBareBroadcast } from './lib/bare-broadcast.ts';
import { memory, nextReport } from './lib/child-reports.ts';
import { machineLine } from './lib/compare.ts';
import type { Command, PhasePlan, PhaseResult, Report } from './lib/fanout-protocol.ts';
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
const STRESS_RATE = setting('BENCH_FANOUT_STRESS_RATE', 300);
/** Each publisher connection stays well inside the gateway's per-connection rate limit (20/s). */
const PER_PUBLISHER = 10;
const PUBLISHERS = Math.ceil(Math.max(RATE, STRESS_RATE) / PER_PUBLISHER);
const PHASES: PhasePlan[] = [
  { name: `${RATE} msg/s`, rate: RATE, seconds: SECONDS },
  ...(STRESS_RATE > 0 ? [{ name: `${STRESS_RATE} msg/s`, rate: STRESS_RATE, seconds: 5 }] : []),
];
const ROOM = `bench-${Date.now()}`;
/** Nothing here may run longer than this. */
const TARGET_DEADLINE_MS = 5 * 60_000;

interface TargetResult {
  name: string;
  rssPerConnectionKiB: number;
  heapPerConnectionKiB: number;
  phases: PhaseResult[];
}

async function measureTarget(name: string, url: string, tokens: string[] | undefined): Promise<TargetResult> {
  const child = fork(path.join(import.meta.dirname, 'lib/fanout-clients.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const send = (command: Command) => child.send(command);
  try {
    // Let the setup's garbage go first, so the RSS delta is the connections' (RSS stays noisy; heap is the steadier figure).
    memory();
    await sleep(1000);
    const before = memory();
    const connected = nextReport<Report, 'connected'>(child, 'connected', TARGET_DEADLINE_MS);
    send({ kind: 'connect', url, room: ROOM, tokens, subscribers: SUBSCRIBERS, publishers: PUBLISHERS });
    await connected;
    await sleep(1000);
    const idle = memory();
    const connections = SUBSCRIBERS + PUBLISHERS;
    const result = nextReport<Report, 'result'>(child, 'result', TARGET_DEADLINE_MS);
    send({ kind: 'run', phases: PHASES });
    const { phases } = (await result) as Extract<Report, { kind: 'result' }>;
    return {
      name,
      rssPerConnectionKiB: (idle.rss - before.rss) / connections / 1024,
      heapPerConnectionKiB: (idle.heap - before.heap) / connections / 1024,
      phases,
    };
  } finally {
    if (child.connected) send({ kind: 'exit' });
    await sleep(200);
    child.kill();
  }
}

/** A tenant, the room, and one session token per connection (publishers first). */
async function prepareService(service: ServiceTarget): Promise<string[]> {
  const { apiKey: key } = await createBenchTenant(service.db);
  const headers = { authorization: `Bearer ${key}` };
  const room = await service.app.inject({ method: 'POST', url: '/v1/rooms', headers, payload: { id: ROOM } });
  if (room.statusCode !== 201) throw new Error(`room: ${room.statusCode} ${room.body}`);
  const tokens: string[] = [];
  const total = SUBSCRIBERS + PUBLISHERS;
  for (let at = 0; at < total; at += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, total - at) }, async (_, i) => {
        const res = await service.app.inject({
          method: 'POST',
          url: '/v1/runtime/connect',
          headers,
          payload: {
            modules: ['rooms', 'presence', 'chat'],
            actor: { type: 'end_user', id: `bench:user-${at + i}`, identityProvider: 'bench' },
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

function printResults(bare: TargetResult, svc: TargetResult): void {
  const cell = (value: string, width: number) => value.padEnd(width);
  const header = [
    'target',
    'phase',
    'offered/s',
    'delivered/s',
    'complete',
    'p50 ms',
    'p99 ms',
    'max ms',
    'closed',
    'refused',
    'client CPU',
  ];
  const widths = [10, 12, 11, 13, 10, 9, 9, 9, 8, 9, 10];
  const line = (cells: string[]) => cells.map((c, i) => cell(c, widths[i] ?? 10)).join('');
  process.stdout.write(`\n${line(header)}\n`);
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
          `${(100 * p.clientCpu).toFixed(0)}%`,
        ])}\n`,
      );
    }
  }
  process.stdout.write('\n');
  for (const [i, plan] of PHASES.entries()) {
    const b = bare.phases[i];
    const s = svc.phases[i];
    if (b === undefined || s === undefined) continue;
    const ratio = s.delivered / (s.seconds || 1) / (b.delivered / (b.seconds || 1));
    process.stdout.write(
      `ratio svc/bare delivered per second at ${plan.name}: ${ratio.toFixed(2)}` +
        ` (p99 ${s.p99Ms.toFixed(1)} ms vs ${b.p99Ms.toFixed(1)} ms)\n`,
    );
  }
  process.stdout.write(
    `idle memory per connection: bare ${bare.rssPerConnectionKiB.toFixed(1)} KiB RSS, ${bare.heapPerConnectionKiB.toFixed(1)} KiB heap; ` +
      `svc ${svc.rssPerConnectionKiB.toFixed(1)} KiB RSS, ${svc.heapPerConnectionKiB.toFixed(1)} KiB heap` +
      ' (svc connections joined the room with presence)\n',
  );
}

async function main(): Promise<void> {
  process.stdout.write(
    `\nfan-out: 1 room, ${SUBSCRIBERS} subscribers (+${PUBLISHERS} publishers), ` +
      `${PHASES.map((p) => `${p.name} for ${p.seconds} s`).join(', then ')}; loopback, clients in a separate process\n` +
      `  backplane: ${process.env.BENCH_REDIS_URL === undefined ? 'in-memory' : 'Redis'}; database: ${process.env.BENCH_DATABASE_URL === undefined ? 'in-memory PGlite' : 'PostgreSQL'}\n` +
      `  ${machineLine()}\n`,
  );
  if ((globalThis as { gc?: unknown }).gc === undefined) {
    process.stdout.write('  (run with --expose-gc for steadier memory figures)\n');
  }
  const bareServer = await startBareBroadcast();
  let bare: TargetResult;
  try {
    bare = await measureTarget('ws bare', bareServer.url, undefined);
  } finally {
    await bareServer.close();
  }
  const service = await startService({
    REDIS_URL: process.env.BENCH_REDIS_URL,
    DATABASE_URL: process.env.BENCH_DATABASE_URL,
    LOG_LEVEL: 'error',
  });
  let svc: TargetResult;
  try {
    const tokens = await prepareService(service);
    svc = await measureTarget('svc', `${service.baseUrl.replace('http://', 'ws://')}/v1/realtime`, tokens);
  } finally {
    await service.close();
  }
  printResults(bare, svc);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench:fanout failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
