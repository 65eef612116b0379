// `npm run bench:startup`: the embedded server as a user runs it (`node bin/svc.mjs start`, a temporary
// SVC_DATA_DIR, port 0), measured from the spawn: first start on an empty folder, restart after SIGTERM,
// restart after SIGKILL (with writes just before the kill), each to the banner and to /readyz 200; idle RSS;
// then, once, RSS with many idle joined WebSocket connections and the join latency of a crowd joining one
// room at the same moment. Loopback only; every wait is bounded.
//
// BENCH_STARTUP_RUNS (3), BENCH_STARTUP_SETTLE_MS (5000), BENCH_STARTUP_WRITES (200 rooms created before
// the SIGKILL), BENCH_STARTUP_SOCKETS (1000 idle joined sockets), BENCH_STARTUP_CROWD (500 of them join at once).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type CliServer, memoryOf, startCli, stopCli } from './lib/cli-process.ts';
import { machineLine } from './lib/compare.ts';
import { createRoom, joinAtOnce, joinInBatches, mintTokens, percentile } from './lib/join-sockets.ts';
import {
  breakdownDelta,
  breakdownLine,
  type MemoryBreakdown,
  memoryBreakdown,
} from './lib/memory-breakdown.ts';

function setting(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name}: expected a whole number, got ${raw}`);
  return value;
}

const RUNS = Math.max(1, setting('BENCH_STARTUP_RUNS', 3));
const SETTLE_MS = setting('BENCH_STARTUP_SETTLE_MS', 5000);
const WRITES = setting('BENCH_STARTUP_WRITES', 200);
const SOCKETS = Math.min(setting('BENCH_STARTUP_SOCKETS', 1000), 5000);
const CROWD = Math.min(setting('BENCH_STARTUP_CROWD', 500), SOCKETS);

interface Start {
  listeningMs: number;
  readyMs: number;
}

interface Run {
  first: Start;
  idleFirstMiB: number;
  stopMs: number;
  restart: Start;
  idleRestartMiB: number;
  afterKill: Start;
  /** Where the idle RSS after the first start is (see lib/memory-breakdown.ts). */
  idleFirstBreakdown: string;
}

const started = (server: CliServer): Start => ({ listeningMs: server.listeningMs, readyMs: server.readyMs });

/** RSS after the process had `SETTLE_MS` to finish its start-up work and collect its garbage. */
async function settledRss(server: CliServer): Promise<number> {
  await sleep(SETTLE_MS);
  return memoryOf(server.pid).rssMiB;
}

/** Rows written through the API just before the SIGKILL, so recovery has a WAL tail to replay. */
async function write(server: CliServer, count: number): Promise<void> {
  for (let i = 0; i < count; i += 10) {
    await Promise.all(
      Array.from({ length: Math.min(10, count - i) }, async () => {
        const res = await fetch(`${server.baseUrl}/v1/rooms`, {
          method: 'POST',
          headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
          body: '{}',
          signal: AbortSignal.timeout(30_000),
        });
        if (res.status !== 201) throw new Error(`create room: ${res.status} ${await res.text()}`);
      }),
    );
  }
}

/**
 * A new data directory is copied from a template kept in node_modules/.cache/svc (see
 * src/core/db/pglite-template.ts); this is the first start before that template exists. Absent in builds
 * without templates, where every first start is this one.
 */
async function coldFirstStart(): Promise<Start | undefined> {
  const cache = path.resolve(import.meta.dirname, '../node_modules/.cache/svc');
  if (!fs.existsSync(path.resolve(import.meta.dirname, '../src/core/db/pglite-template.ts')))
    return undefined;
  fs.rmSync(cache, { recursive: true, force: true });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-startup-'));
  try {
    const server = await startCli(dir);
    await stopCli(server, 'SIGTERM');
    return started(server);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function oneRun(index: number, keep: boolean): Promise<{ run: Run; server?: CliServer; dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-startup-'));
  const first = await startCli(dir);
  const idleFirstMiB = await settledRss(first);
  const idleFirstBreakdown = breakdownLine(memoryBreakdown(first.pid));
  const stopMs = await stopCli(first, 'SIGTERM');
  const restart = await startCli(dir);
  const idleRestartMiB = await settledRss(restart);
  await write(restart, WRITES);
  await stopCli(restart, 'SIGKILL');
  const afterKill = await startCli(dir);
  const run: Run = {
    first: started(first),
    idleFirstMiB,
    stopMs,
    restart: started(restart),
    idleRestartMiB,
    afterKill: started(afterKill),
    idleFirstBreakdown,
  };
  process.stdout.write(`${runRow(`run ${index}`, run)}\n`);
  if (keep) return { run, server: afterKill, dir };
  await stopCli(afterKill, 'SIGTERM');
  fs.rmSync(dir, { recursive: true, force: true });
  return { run, dir };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const upper = sorted[mid] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] ?? upper) + upper) / 2;
}

const seconds = (ms: number) => (ms / 1000).toFixed(2);
const WIDTHS = [10, 18, 18, 18, 12, 12, 10];

function row(cells: string[]): string {
  return cells.map((c, i) => c.padEnd(WIDTHS[i] ?? 12)).join('');
}

function runRow(label: string, run: Run): string {
  const pair = (s: Start) => `${seconds(s.listeningMs)} / ${seconds(s.readyMs)}`;
  return row([
    label,
    pair(run.first),
    pair(run.restart),
    pair(run.afterKill),
    run.idleFirstMiB.toFixed(0),
    run.idleRestartMiB.toFixed(0),
    seconds(run.stopMs),
  ]);
}

function medianRun(runs: Run[]): Run {
  const of = (pick: (r: Run) => number) => median(runs.map(pick));
  const start = (pick: (r: Run) => Start): Start => ({
    listeningMs: of((r) => pick(r).listeningMs),
    readyMs: of((r) => pick(r).readyMs),
  });
  return {
    first: start((r) => r.first),
    idleFirstMiB: of((r) => r.idleFirstMiB),
    stopMs: of((r) => r.stopMs),
    restart: start((r) => r.restart),
    idleRestartMiB: of((r) => r.idleRestartMiB),
    afterKill: start((r) => r.afterKill),
    idleFirstBreakdown: runs[0]?.idleFirstBreakdown ?? '',
  };
}

/**
 * The crowd joins one room at the same moment; the rest join another room 50 at a time; then idle. RSS is
 * read (settled) before the tokens are minted, after, after the crowd and after the rest: what the last
 * sockets added per socket is the marginal figure, without the one-time growth of the first ones (code
 * compiled, the database's WebAssembly memory grown by the writes, V8's heap growing its pages).
 */
async function sockets(server: CliServer, idleMiB: number): Promise<void> {
  const idle = memoryBreakdown(server.pid);
  await createRoom(server.baseUrl, server.apiKey, 'bench-crowd');
  await createRoom(server.baseUrl, server.apiKey, 'bench-idle');
  const tokens = await mintTokens(server.baseUrl, server.apiKey, SOCKETS);
  await settledRss(server);
  const minted = memoryBreakdown(server.pid);
  const crowd = await joinAtOnce(server.baseUrl, tokens.slice(0, CROWD), 'bench-crowd', CROWD);
  await settledRss(server);
  const crowdJoined = memoryBreakdown(server.pid);
  const rest = await joinInBatches(server.baseUrl, tokens.slice(CROWD), 'bench-idle');
  const joinMs = crowd.map((s) => s.joinMs);
  const rssMiB = await settledRss(server);
  const all = memoryBreakdown(server.pid);
  const perSocket = (from: MemoryBreakdown, to: MemoryBreakdown, count: number) =>
    `${(((to.rssMiB - from.rssMiB) * 1024) / Math.max(1, count)).toFixed(1)} KiB per socket (${breakdownDelta(from, to)})`;
  process.stdout.write(
    [
      '',
      `${CROWD} simultaneous joins of one room (sockets upgraded first, then every join sent at once):`,
      `  p50 ${joinMs.length === 0 ? '-' : percentile(joinMs, 50).toFixed(0)} ms, p99 ${percentile(joinMs, 99).toFixed(0)} ms, max ${Math.max(...joinMs).toFixed(0)} ms`,
      `${crowd.length + rest.length} idle joined sockets (presence members; ${crowd.length} in one room, ${rest.length} in another):`,
      `  RSS ${rssMiB.toFixed(0)} MiB (idle before them ${idleMiB.toFixed(0)} MiB: +${(((rssMiB - idleMiB) * 1024) / Math.max(1, crowd.length + rest.length)).toFixed(1)} KiB per socket, all growth included)`,
      `  minting ${SOCKETS} session tokens: ${breakdownDelta(idle, minted)}`,
      `  the crowd's ${crowd.length} sockets: +${perSocket(minted, crowdJoined, crowd.length)}`,
      `  the last ${rest.length} sockets: +${perSocket(crowdJoined, all, rest.length)}`,
      '',
    ].join('\n'),
  );
  for (const s of [...crowd, ...rest]) s.socket.terminate();
}

async function main(): Promise<void> {
  process.stdout.write(
    `\nstart-up, embedded database: node bin/svc.mjs start (development, temporary SVC_DATA_DIR, port 0), ${RUNS} run(s)\n` +
      `  each run: first start on an empty folder; idle RSS after ${SETTLE_MS / 1000} s; SIGTERM; restart; idle RSS; ` +
      `${WRITES} rooms created; SIGKILL; start again\n` +
      '  times in seconds from spawn to the banner / to the first 200 from /readyz; RSS from /proc VmRSS\n' +
      `  ${machineLine()}\n\n`,
  );
  process.stdout.write(
    `${row(['', 'first start', 'restart', 'after SIGKILL', 'idle MiB', 'idle MiB', 'SIGTERM'])}\n`,
  );
  process.stdout.write(
    `${row(['', 'banner / ready', 'banner / ready', 'banner / ready', '(first)', '(restart)', 'to exit'])}\n`,
  );
  const cold = await coldFirstStart();
  const runs: Run[] = [];
  let last: { server?: CliServer; dir: string } | undefined;
  for (let i = 1; i <= RUNS; i++) {
    const result = await oneRun(i, i === RUNS && SOCKETS > 0);
    runs.push(result.run);
    last = result;
  }
  const med = medianRun(runs);
  process.stdout.write(`${runRow('median', med)}\n`);
  runs.forEach((run, i) => {
    process.stdout.write(`idle after the first start, run ${i + 1}: ${run.idleFirstBreakdown}\n`);
  });
  process.stdout.write(
    `\ntargets (issue 13): first start < 3 s (median ${seconds(med.first.readyMs)}), restart < 1 s ` +
      `(${seconds(med.restart.readyMs)}), after SIGKILL < 5 s (${seconds(med.afterKill.readyMs)}), ` +
      `idle RSS < 300 MB (${med.idleRestartMiB.toFixed(0)} MiB after a restart, ${med.idleFirstMiB.toFixed(0)} MiB after the first start)\n`,
  );
  if (cold !== undefined) {
    process.stdout.write(
      `first start with no template yet (once per machine, PGlite version and migration set): ` +
        `${seconds(cold.listeningMs)} s to the banner, ${seconds(cold.readyMs)} s to ready\n`,
    );
  }
  const server = last?.server;
  if (server !== undefined && last !== undefined) {
    try {
      await sockets(server, await settledRss(server));
    } finally {
      await stopCli(server, 'SIGTERM');
      fs.rmSync(last.dir, { recursive: true, force: true });
    }
  }
}

await main();
