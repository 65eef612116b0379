// `npm run bench:auctions`: accepted bids per second through the whole service (HTTP, group commit,
// rules, outbox, realtime fan-out), on one hot auction and on 100 auctions at once, on the embedded
// database and on PostgreSQL; p50/p99 from sending a bid on the hot auction to its frame reaching each of
// 100 sockets watching the room, with the bidders in a closed loop and at a fixed rate offered open loop;
// on PostgreSQL also one hot auction bid on through two instances in turn; and the baseline measured in
// the same run through the same driver: a bare single-row `UPDATE ... WHERE price < $1` loop, run just
// before and just after the hot auction's closed loop (the ratio is to their mean: the loop alone varied
// from 1,100 to 2,300 updates/s between runs on this machine). PostgreSQL is measured in a throwaway
// database on BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres); skipped with a note
// when unreachable.
//
// Settings: BENCH_CONNECTIONS (concurrent bidders, default 50), BENCH_DURATION_S (default 5),
// BENCH_WATCHERS (sockets in the hot room, default 100), BENCH_RATE (bids/s offered open loop, default
// 2000: the issue's target as a rate; `auto`: 80 % of the hot auction's closed-loop rate in the same run),
// BENCH_ONLY (embedded | postgres), BENCH_PROFILE (a file: the service's CPU profile of the hot run).
// Each hot run also prints where the bid queue's time went (GroupCommits' phases, see group-commit.ts).
// The bidders and the watching sockets run in two child processes (bench/lib/auction-clients.ts), so the
// service shares no event loop with its load, and the bidders' loop does not wait behind the frames the
// watchers decode.

import fs from 'node:fs';
import inspector from 'node:inspector';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { GroupPhases } from '../src/core/db/group-commit.ts';
import { newKeyEntry } from '../src/core/secrets/keys.ts';
import { clientProcess, inChildren, liveAuction, settings } from './lib/auction-clients.ts';
import { machineLine } from './lib/compare.ts';
import { startService } from './lib/targets.ts';
import { createBenchTenant } from './lib/tenant.ts';
import { withThrowawayDatabase } from './lib/throwaway-db.ts';

const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 100);
const AUCTIONS = 100;
const RATE_SETTING = process.env.BENCH_RATE ?? '2000';

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
    const run = await inChildren(import.meta.filename, {
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
    const bareBefore = await bareUpdates(service.db, settings.durationSeconds);
    // The service's own CPU from the watchers' join to the end (warm-up, bids and the frames' tail).
    let cpuBefore = process.cpuUsage();
    let pgBefore = postgresCpuMs();
    let wallBefore = performance.now();
    let groupsBefore = service.app.services.groupCommit.written('auctions.bid');
    const phases = () => service.app.services.groupCommit.phases('auctions.bid');
    let phasesBefore = phases();
    const profile = await profiler(process.env.BENCH_PROFILE);
    const one = await inChildren(
      import.meta.filename,
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
    const bareAfter = await bareUpdates(service.db, settings.durationSeconds);
    const bare = (bareBefore + bareAfter) / 2;

    // The target as a rate: bids offered at PACED_RATE a second, open loop, on a new auction watched alike.
    const pacedAuction = await liveAuction(baseUrl, apiKey, `paced-${stamp}`);
    const pacedRate =
      RATE_SETTING === 'auto'
        ? Math.max(1, Math.round((0.8 * one.accepted) / settings.durationSeconds))
        : Number(RATE_SETTING);
    const pacedPhasesBefore = phases();
    const paced = await inChildren(import.meta.filename, {
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
    const spread = await inChildren(import.meta.filename, {
      baseUrl,
      apiKey,
      auctionIds: many,
      watchers: 0,
      watchRoom: '',
    });
    const twice =
      env.DATABASE_URL === undefined ? undefined : await twoInstances(service, env, apiKey, stamp);

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
        `    CPU over those ${(wallMs / 1000).toFixed(1)} s (${os.cpus().length} cores: ${((os.cpus().length * wallMs) / 1000).toFixed(1)} s to share): service ${ms((cpu.user + cpu.system) / 1e6)} s, clients ${ms(one.cpuMs / 1000)} s (watchers ${ms(one.watcherCpuMs / 1000)} s)${pgMs === undefined ? ' (PostgreSQL: in the service, embedded)' : `, PostgreSQL ${ms(pgMs / 1000)} s`}`,
        `  one hot auction, ${pacedRate} bids/s offered (open loop, ${settings.durationSeconds} s):${fmt(perSecond(paced))} accepted/s + ${fmt(paced.refused / settings.durationSeconds)} refused/s (errors ${paced.errors})`,
        `    bid due -> frame at ${WATCHERS} watchers: p50 ${ms(paced.p50Ms)} ms  p99 ${ms(paced.p99Ms)} ms  (${paced.deliveries} deliveries, ${paced.missing} missing)`,
        `    bid queue phases: ${pacedPhases}`,
        `  ${AUCTIONS} auctions at once  ${fmt(perSecond(spread))} accepted bids/s  (refused ${spread.refused}, errors ${spread.errors})`,
        ...(twice === undefined
          ? []
          : [
              `  one hot auction, 2 instances ${fmt(perSecond(twice.run))} accepted bids/s  (refused ${twice.run.refused}, errors ${twice.run.errors}; bids through each in turn, both in this process; ${twice.groups} transactions, ${twice.perGroup.toFixed(1)} bids each)`,
            ]),
        `  bare UPDATE ... WHERE price < $1   ${fmt(bare)} rows/s (same driver, ${settings.connections} concurrent loops, one row; ${bareBefore.toFixed(0)} before the hot auction's loop, ${bareAfter.toFixed(0)} after)`,
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

const role = process.argv[2];
if (role === 'bidders' || role === 'watchers') clientProcess(role);
else {
  process.stdout.write(`bench:auctions  ${machineLine()}\n`);
  const only = process.env.BENCH_ONLY;
  if (only !== 'postgres') await run('embedded (PGlite)', {});
  if (only !== 'embedded')
    await withThrowawayDatabase('svc_bench_auctions', (url) =>
      // One encryption key for both instances of `twoInstances`.
      run('PostgreSQL', { DATABASE_URL: url, SVC_ENCRYPTION_KEY: newKeyEntry(Date.now()) }),
    );
}
