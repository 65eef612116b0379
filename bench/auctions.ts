// `npm run bench:auctions`: accepted bids per second through the whole service (HTTP, group commit,
// rules, outbox, realtime fan-out), on one hot auction and on 100 auctions at once, on the embedded
// database and on PostgreSQL; p50/p99 from sending a bid on the hot auction to its frame reaching each of
// 100 sockets watching the room, with the bidders in a closed loop and at a fixed rate offered open loop;
// on PostgreSQL also one hot auction bid on through two instances in turn; and the baseline measured in
// the same run through the same driver: a bare single-row `UPDATE ... WHERE price < $1` loop. PostgreSQL is measured in a throwaway database on
// BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres); skipped with a note when unreachable.
//
// Settings: BENCH_CONNECTIONS (concurrent bidders, default 50), BENCH_DURATION_S (default 5),
// BENCH_WATCHERS (sockets in the hot room, default 100), BENCH_RATE (bids/s offered open loop, default
// 2000: the issue's target as a rate; `auto`: 80 % of the hot auction's closed-loop rate in the same run),
// BENCH_ONLY (embedded | postgres), BENCH_PROFILE (a file: the service's CPU profile of the hot run).
// Each hot run also prints where the bid queue's time went (GroupCommits' phases, see group-commit.ts).
// The bidders and the watching sockets run in a child process (`clients`), so the service shares no
// event loop with its load.

import { fork } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import inspector from 'node:inspector';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import type { GroupPhases } from '../src/core/db/group-commit.ts';
import { newKeyEntry } from '../src/core/secrets/keys.ts';
import { machineLine } from './lib/compare.ts';
import { percentile } from './lib/join-sockets.ts';
import { loadSettings } from './lib/load.ts';
import { startService } from './lib/targets.ts';
import { createBenchTenant } from './lib/tenant.ts';
import { withThrowawayDatabase } from './lib/throwaway-db.ts';

const settings = loadSettings({ connections: 50, durationSeconds: 5, warmupSeconds: 1 });
const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 100);
const AUCTIONS = 100;
const RATE_SETTING = process.env.BENCH_RATE ?? '2000';

async function api(baseUrl: string, apiKey: string, route: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${baseUrl}${route}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${route}: ${res.status} ${text}`);
  return JSON.parse(text);
}

async function liveAuction(baseUrl: string, apiKey: string, roomId: string): Promise<string> {
  await api(baseUrl, apiKey, '/v1/rooms', { id: roomId });
  const auction = (await api(baseUrl, apiKey, '/v1/auctions', {
    roomId,
    title: 'bench lot',
    currency: 'EUR',
    startingPrice: 1,
    durationSeconds: 86_400,
    increments: [{ from: 0, increment: 1 }],
    suddenDeath: true,
  })) as { id: string };
  await api(baseUrl, apiKey, `/v1/auctions/${auction.id}/start`, undefined);
  return auction.id;
}

const BID_FRAME = Buffer.from('{"type":"auction.bid"');
const CLIENT_BID_ID = Buffer.from('"clientBidId":"');

/**
 * The number of the bid a frame is about (its clientBidId is a letter and the number, see `sentBids`),
 * or -1 when it is no bid frame. Read from the bytes as they came: the 100 watchers share the two cores
 * with the service, and decoding each frame to a string and searching that cost them twice the CPU.
 */
function bidNumberOf(data: Buffer): number {
  if (
    data.length < BID_FRAME.length ||
    data.compare(BID_FRAME, 0, BID_FRAME.length, 0, BID_FRAME.length) !== 0
  )
    return -1;
  const at = data.indexOf(CLIENT_BID_ID);
  if (at < 0) return -1;
  let n = 0;
  for (let i = at + CLIENT_BID_ID.length + 1; i < data.length; i++) {
    const digit = (data[i] as number) - 48;
    if (digit < 0 || digit > 9) break;
    n = n * 10 + digit;
  }
  return n;
}

/** Sockets in `roomId`; each records when it saw each bid frame (indexed by bid number, see `sentBids`). */
async function watch(baseUrl: string, apiKey: string, roomId: string, count: number) {
  const seen: number[][] = [];
  const sockets: WebSocket[] = [];
  const wsUrl = `${baseUrl.replace('http', 'ws')}/v1/realtime`;
  for (let i = 0; i < count; i++) {
    const { token } = (await api(baseUrl, apiKey, '/v1/runtime/connect', {
      modules: ['rooms', 'auctions'],
      actor: { type: 'end_user', id: `bench:watcher-${i}`, identityProvider: 'bench' },
    })) as { token: string };
    const socket = new WebSocket(`${wsUrl}?token=${encodeURIComponent(token)}`, { skipUTF8Validation: true });
    const arrivals: number[] = [];
    seen.push(arrivals);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => {
        socket.send(JSON.stringify({ type: 'join', room: roomId, ref: 'j' }));
      });
      const joining = (data: Buffer) => {
        if (!String(data).includes('"joined"')) return;
        socket.off('message', joining);
        socket.on('message', (frame: Buffer) => {
          const n = bidNumberOf(frame);
          if (n >= 0) arrivals[n] = performance.now();
        });
        resolve();
      };
      socket.on('message', joining);
      socket.once('error', reject);
    });
    sockets.push(socket);
  }
  return {
    seen,
    close: () => {
      for (const socket of sockets) socket.terminate();
    },
  };
}

interface BidRun {
  accepted: number;
  refused: number;
  errors: number;
  /** Bid number -> when it was sent (accepted bids only). */
  sentAt: Map<number, number>;
}

/**
 * A POST on a keep-alive connection, answered with its status. `node:http` rather than `fetch`: the
 * bidders share the two cores with the service, and `fetch` cost them about twice the CPU per request.
 */
function post(agent: http.Agent, url: URL, headers: Record<string, string>, body: string): Promise<number> {
  const payload = Buffer.from(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { ...headers, 'content-length': String(payload.length) },
      },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
        res.once('error', reject);
      },
    );
    req.once('error', reject);
    req.end(payload);
  });
}

/**
 * CPU time of every `postgres` process on this machine so far (Linux /proc; undefined elsewhere): the
 * server's share of the cores during a run, next to the service's and the clients'.
 */
function postgresCpuMs(): number | undefined {
  if (!fs.existsSync('/proc/self/stat')) return undefined;
  let ticks = 0;
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    } catch {
      // The process ended meanwhile.
    }
  }
  return ticks * 10; // USER_HZ is 100 on Linux
}

/**
 * Bids sent so far by this process (warm-up included): each bid's maximum and clientBidId come from it, so
 * every bid tops the ones sent before it and no clientBidId is used twice (a reused one is a retry, which
 * answers with the first result).
 */
let sentBids = 0;

/**
 * `connections` loops bid for `seconds` on the auctions given, round robin, each auction through every
 * instance of `baseUrls` in turn; each bid tops the last by a little.
 */
async function bidFor(
  baseUrls: readonly string[],
  apiKey: string,
  auctionIds: readonly string[],
  seconds: number,
): Promise<BidRun> {
  const run: BidRun = { accepted: 0, refused: 0, errors: 0, sentAt: new Map() };
  const until = performance.now() + seconds * 1000;
  const agent = new http.Agent({ keepAlive: true, maxSockets: settings.connections });
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const urls = auctionIds.flatMap((id) => baseUrls.map((base) => new URL(`${base}/v1/auctions/${id}/bids`)));
  await Promise.all(
    Array.from({ length: settings.connections }, async (_, n) => {
      const actor = { type: 'end_user', id: `bench:bidder-${n}`, identityProvider: 'bench' };
      while (performance.now() < until) {
        sentBids += 1;
        const bidNo = sentBids;
        const url = urls[bidNo % urls.length] as URL;
        const clientBidId = `b${bidNo}`;
        const sent = performance.now();
        const body = JSON.stringify({ maxAmount: 1000 + bidNo * 10, clientBidId, actor });
        const status = await post(agent, url, headers, body).catch(() => 0);
        if (status === 201) {
          run.accepted += 1;
          run.sentAt.set(bidNo, sent);
        } else if (status === 409) run.refused += 1;
        else run.errors += 1;
      }
    }),
  );
  agent.destroy();
  return run;
}

/**
 * Open loop: bid i is due at start + i / rate and is sent then, answered or not (no coordinated omission;
 * as bench/lib/paced-load.ts, with a body of its own per bid). Its latency counts from its due time.
 */
async function bidPaced(
  baseUrl: string,
  apiKey: string,
  auctionId: string,
  rate: number,
  seconds: number,
): Promise<BidRun> {
  const run: BidRun = { accepted: 0, refused: 0, errors: 0, sentAt: new Map() };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const url = new URL(`${baseUrl}/v1/auctions/${auctionId}/bids`);
  const total = Math.round(rate * seconds);
  const pending: Promise<void>[] = [];
  const send = async (i: number, dueAt: number) => {
    const actor = { type: 'end_user', id: `bench:paced-${i % 500}`, identityProvider: 'bench' };
    sentBids += 1;
    const bidNo = sentBids;
    const clientBidId = `p${bidNo}`;
    const body = JSON.stringify({ maxAmount: 1000 + bidNo * 10, clientBidId, actor });
    const status = await post(agent, url, headers, body).catch(() => 0);
    if (status === 201) {
      run.accepted += 1;
      run.sentAt.set(bidNo, dueAt);
    } else if (status === 409) run.refused += 1;
    else run.errors += 1;
  };
  const startedAt = performance.now();
  for (let sent = 0; sent < total; ) {
    const due = Math.min(total, Math.floor(((performance.now() - startedAt) * rate) / 1000) + 1);
    for (; sent < due; sent++) pending.push(send(sent, startedAt + (sent * 1000) / rate));
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(pending);
  agent.destroy();
  return run;
}

interface ClientJob {
  baseUrl: string;
  /** Further instances the closed loop bids through too, in turn with `baseUrl` (one database). */
  alsoVia?: string[];
  apiKey: string;
  auctionIds: string[];
  /** Sockets to join into `watchRoom` before bidding (0: none). */
  watchers: number;
  watchRoom: string;
  /** Bids per second offered open-loop on the first auction (after a closed-loop warm-up); else closed loop. */
  rate?: number;
}

interface ClientReport {
  accepted: number;
  /** Accepted during warm-up and the measured run. */
  acceptedAll: number;
  refused: number;
  errors: number;
  /** Bid -> frame, over every watcher and accepted bid (computed here: the whole list is ~10 MB of IPC). */
  p50Ms: number;
  p99Ms: number;
  deliveries: number;
  missing: number;
  /** The clients' own CPU from the watchers' join to the end of the frames' tail. */
  cpuMs: number;
}

/** In the child: joins the watchers, warms up, bids for the bench's duration, measures bid -> frame. */
async function runClients(job: ClientJob): Promise<ClientReport> {
  const watchers =
    job.watchers > 0 ? await watch(job.baseUrl, job.apiKey, job.watchRoom, job.watchers) : undefined;
  process.send?.('ready');
  const cpuBefore = process.cpuUsage();
  const via = [job.baseUrl, ...(job.alsoVia ?? [])];
  const warmup = await bidFor(via, job.apiKey, job.auctionIds, settings.warmupSeconds);
  const run =
    job.rate === undefined
      ? await bidFor(via, job.apiKey, job.auctionIds, settings.durationSeconds)
      : await bidPaced(job.baseUrl, job.apiKey, job.auctionIds[0] ?? '', job.rate, settings.durationSeconds);
  // Let the last frames arrive before reading the latencies.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const latencies: number[] = [];
  let missing = 0;
  if (watchers !== undefined) {
    for (const [bidNo, sent] of run.sentAt) {
      for (const arrivals of watchers.seen) {
        const at = arrivals[bidNo];
        if (at === undefined) missing += 1;
        else latencies.push(at - sent);
      }
    }
    watchers.close();
  }
  const cpu = process.cpuUsage(cpuBefore);
  latencies.sort((x, y) => x - y);
  return {
    cpuMs: (cpu.user + cpu.system) / 1000,
    accepted: run.accepted,
    acceptedAll: warmup.accepted + run.accepted,
    refused: run.refused,
    errors: run.errors,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    deliveries: latencies.length,
    missing,
  };
}

/**
 * With BENCH_PROFILE=<file>, a CPU profile of the service (this process) from the watchers' join to the
 * end of the hot run, for `chrome://inspect` or any .cpuprofile reader.
 */
async function profiler(file: string | undefined) {
  if (file === undefined) return { start() {}, async stop() {} };
  const session = new inspector.Session();
  session.connect();
  const post = (method: string) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, (error, result) => (error ? reject(error) : resolve(result))),
    );
  await post('Profiler.enable');
  return {
    start: () => void post('Profiler.start'),
    async stop() {
      const { profile } = (await post('Profiler.stop')) as { profile: unknown };
      fs.writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
      process.stdout.write(`  profile of the hot run written to ${file}\n`);
    },
  };
}

/** Runs a job in a child process of its own; `onReady` runs once its watchers joined. */
async function inChild(job: ClientJob, onReady?: () => void): Promise<ClientReport> {
  const child = fork(import.meta.filename, ['clients'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise<ClientReport>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the clients exited (${code})`)));
    child.on('message', (message: ClientReport | 'ready') => {
      if (message === 'ready') {
        onReady?.();
        return;
      }
      resolve(message);
      child.kill();
    });
    child.send(job);
  });
}

/** The baseline: a bare single-row guarded UPDATE loop, same driver, same concurrency. */
async function bareUpdates(
  db: Awaited<ReturnType<typeof startService>>['db'],
  seconds: number,
): Promise<number> {
  await db.exec('create table if not exists bench_bare (id int primary key, price bigint not null)');
  await db.exec('insert into bench_bare values (1, 0) on conflict (id) do update set price = 0');
  const until = performance.now() + seconds * 1000;
  let price = 0;
  let count = 0;
  await Promise.all(
    Array.from({ length: settings.connections }, async () => {
      while (performance.now() < until) {
        price += 1;
        await db.query('update bench_bare set price = $1 where id = 1 and price < $1', [price]);
        count += 1;
      }
    }),
  );
  await db.exec('drop table bench_bare');
  return count / seconds;
}

/**
 * One hot auction bid on through two instances on one database, each bid through the other instance
 * than the bid before (no watchers): most groups find the auction moved by the other instance and are
 * decided under the row's lock. Both instances run in this process.
 */
async function twoInstances(
  service: Awaited<ReturnType<typeof startService>>,
  env: Record<string, string | undefined>,
  apiKey: string,
  stamp: string,
) {
  const other = await startService(env);
  try {
    const auction = await liveAuction(service.baseUrl, apiKey, `two-${stamp}`);
    const count = () => {
      const [a, b] = [service, other].map((s) => s.app.services.groupCommit.written('auctions.bid'));
      return { groups: (a?.groups ?? 0) + (b?.groups ?? 0), items: (a?.items ?? 0) + (b?.items ?? 0) };
    };
    const before = count();
    const run = await inChild({
      baseUrl: service.baseUrl,
      alsoVia: [other.baseUrl],
      apiKey,
      auctionIds: [auction],
      watchers: 0,
      watchRoom: '',
    });
    const after = count();
    const groups = after.groups - before.groups;
    return { run, groups, perGroup: (after.items - before.items) / Math.max(1, groups) };
  } finally {
    await other.close();
  }
}

/** The bid queue's phases between two readings: mean and max per phase, one line. */
function phaseLine(before: GroupPhases, after: GroupPhases): string {
  const names = ['wait', 'statement', 'commit', 'handoff', 'fanout'] as const;
  return names
    .map((name) => {
      const count = after[name].count - before[name].count;
      const mean = (after[name].totalMs - before[name].totalMs) / Math.max(1, count);
      return `${name} ${mean.toFixed(2)} ms (max ${after[name].maxMs.toFixed(1)})`;
    })
    .join(', ');
}

async function run(label: string, env: Record<string, string | undefined>) {
  const service = await startService(env);
  try {
    const { apiKey } = await createBenchTenant(service.db);
    const { baseUrl } = service;
    const stamp = Date.now().toString(36);
    const hot = await liveAuction(baseUrl, apiKey, `hot-${stamp}`);
    // The service's own CPU from the watchers' join to the end (warm-up, bids and the frames' tail).
    let cpuBefore = process.cpuUsage();
    let pgBefore = postgresCpuMs();
    let wallBefore = performance.now();
    let groupsBefore = service.app.services.groupCommit.written('auctions.bid');
    const phases = () => service.app.services.groupCommit.phases('auctions.bid');
    let phasesBefore = phases();
    const profile = await profiler(process.env.BENCH_PROFILE);
    const one = await inChild(
      { baseUrl, apiKey, auctionIds: [hot], watchers: WATCHERS, watchRoom: `hot-${stamp}` },
      () => {
        cpuBefore = process.cpuUsage();
        pgBefore = postgresCpuMs();
        wallBefore = performance.now();
        groupsBefore = service.app.services.groupCommit.written('auctions.bid');
        phasesBefore = phases();
        profile.start();
      },
    );
    const cpu = process.cpuUsage(cpuBefore);
    const pgAfter = postgresCpuMs();
    const wallMs = performance.now() - wallBefore;
    const pgMs =
      env.DATABASE_URL === undefined || pgBefore === undefined || pgAfter === undefined
        ? undefined
        : pgAfter - pgBefore;
    await profile.stop();
    const groupsAfter = service.app.services.groupCommit.written('auctions.bid');
    const groups = groupsAfter.groups - groupsBefore.groups;
    const perGroup = (groupsAfter.items - groupsBefore.items) / Math.max(1, groups);
    const { missing } = one;
    const hotPhases = phaseLine(phasesBefore, phases());

    // The target as a rate: bids offered at PACED_RATE a second, open loop, on a new auction watched alike.
    const pacedAuction = await liveAuction(baseUrl, apiKey, `paced-${stamp}`);
    const pacedRate =
      RATE_SETTING === 'auto'
        ? Math.max(1, Math.round((0.8 * one.accepted) / settings.durationSeconds))
        : Number(RATE_SETTING);
    const pacedPhasesBefore = phases();
    const paced = await inChild({
      baseUrl,
      apiKey,
      auctionIds: [pacedAuction],
      watchers: WATCHERS,
      watchRoom: `paced-${stamp}`,
      rate: pacedRate,
    });
    const pacedPhases = phaseLine(pacedPhasesBefore, phases());

    const many: string[] = [];
    for (let i = 0; i < AUCTIONS; i++) many.push(await liveAuction(baseUrl, apiKey, `many-${stamp}-${i}`));
    const spread = await inChild({ baseUrl, apiKey, auctionIds: many, watchers: 0, watchRoom: '' });
    const twice =
      env.DATABASE_URL === undefined ? undefined : await twoInstances(service, env, apiKey, stamp);
    const bare = await bareUpdates(service.db, settings.durationSeconds);

    const perSecond = (r: { accepted: number }) => r.accepted / settings.durationSeconds;
    const fmt = (n: number) => n.toFixed(0).padStart(8);
    // No watchers (BENCH_WATCHERS=0): no latencies to print.
    const ms = (n: number | undefined) => (n !== undefined && Number.isFinite(n) ? n.toFixed(1) : '-');
    process.stdout.write(
      [
        `\n${label}  (${settings.connections} concurrent bidders over HTTP, ${settings.durationSeconds} s each, ${WATCHERS} sockets watching the hot auction)`,
        `  one hot auction     ${fmt(perSecond(one))} accepted bids/s  (refused ${one.refused}, errors ${one.errors})`,
        `    bid -> frame at ${WATCHERS} watchers: p50 ${ms(one.p50Ms)} ms  p99 ${ms(one.p99Ms)} ms  (${one.deliveries} deliveries, ${missing} missing)`,
        `    service CPU ${ms((cpu.user + cpu.system) / 1000)} ms for ${one.acceptedAll} accepted bids (warm-up included): ${((cpu.user + cpu.system) / Math.max(1, one.acceptedAll)).toFixed(0)} µs a bid, ${((100 * cpu.system) / Math.max(1, cpu.user + cpu.system)).toFixed(0)}% in the kernel; ${groups} transactions, ${perGroup.toFixed(1)} bids each`,
        `    bid queue phases (mean per item for wait, per group for the rest): ${hotPhases}`,
        `    CPU over those ${(wallMs / 1000).toFixed(1)} s (${os.cpus().length} cores: ${((os.cpus().length * wallMs) / 1000).toFixed(1)} s to share): service ${ms((cpu.user + cpu.system) / 1e6)} s, clients ${ms(one.cpuMs / 1000)} s${pgMs === undefined ? ' (PostgreSQL: in the service, embedded)' : `, PostgreSQL ${ms(pgMs / 1000)} s`}`,
        `  one hot auction, ${pacedRate} bids/s offered (open loop, ${settings.durationSeconds} s):${fmt(perSecond(paced))} accepted/s + ${fmt(paced.refused / settings.durationSeconds)} refused/s (errors ${paced.errors})`,
        `    bid due -> frame at ${WATCHERS} watchers: p50 ${ms(paced.p50Ms)} ms  p99 ${ms(paced.p99Ms)} ms  (${paced.deliveries} deliveries, ${paced.missing} missing)`,
        `    bid queue phases: ${pacedPhases}`,
        `  ${AUCTIONS} auctions at once  ${fmt(perSecond(spread))} accepted bids/s  (refused ${spread.refused}, errors ${spread.errors})`,
        ...(twice === undefined
          ? []
          : [
              `  one hot auction, 2 instances ${fmt(perSecond(twice.run))} accepted bids/s  (refused ${twice.run.refused}, errors ${twice.run.errors}; bids through each in turn, both in this process; ${twice.groups} transactions, ${twice.perGroup.toFixed(1)} bids each)`,
            ]),
        `  bare UPDATE ... WHERE price < $1   ${fmt(bare)} rows/s (same driver, ${settings.connections} concurrent loops, one row)`,
        `  ratio one hot auction / bare UPDATE = ${(perSecond(one) / bare).toFixed(2)}`,
        `  ratio ${AUCTIONS} auctions / bare UPDATE    = ${(perSecond(spread) / bare).toFixed(2)}`,
        `  load average at the end ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
        '',
      ].join('\n'),
    );
  } finally {
    await service.close();
  }
}

if (process.argv[2] === 'clients') {
  process.once('message', async (job: ClientJob) => {
    const report = await runClients(job);
    process.send?.(report);
  });
} else {
  process.stdout.write(`bench:auctions  ${machineLine()}\n`);
  const only = process.env.BENCH_ONLY;
  if (only !== 'postgres') await run('embedded (PGlite)', {});
  if (only !== 'embedded')
    await withThrowawayDatabase('svc_bench_auctions', (url) =>
      // One encryption key for both instances of `twoInstances`.
      run('PostgreSQL', { DATABASE_URL: url, SVC_ENCRYPTION_KEY: newKeyEntry(Date.now()) }),
    );
}
