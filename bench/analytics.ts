// `npm run bench:analytics`: analytics ingestion and queries.
//
// 1. Ingestion: events per second in batches of 100 through the ingest verb (validation, messageId
//    dedupe, the hourly rollup, group commit, row-level security), on the embedded database and on
//    PostgreSQL, against the baseline measured in the same run through the same driver: a bare multi-row
//    `INSERT` of the same rows into the same table (owner role: no dedupe, no rollup, no RLS).
// 2. Queries on PostgreSQL over BENCH_EVENTS events (default 5 million) of 50 tenants over 90 days,
//    generated in SQL with generate_series: p50/p99 of a 90-day daily count (Europe/Berlin), a breakdown
//    (uniques by room over 30 days, top 10 + other) and a 4-step funnel over 7 days.
//
// PostgreSQL runs in a throwaway database on BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres),
// skipped with a note when unreachable. Settings: BENCH_DURATION_S (per ingestion run, default 5),
// BENCH_CONNECTIONS (concurrent ingesters, default 4), BENCH_EVENTS, BENCH_QUERIES (per kind, default 100),
// BENCH_ONLY (embedded | postgres).

import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.ts';
import { systemClock } from '../src/core/clock.ts';
import type { Database } from '../src/core/db/database.ts';
import { systemContext } from '../src/core/modules/hooks.ts';
import { ingestEvents } from '../src/modules/analytics/verbs/ingest-events.ts';
import { queryAnalytics } from '../src/modules/analytics/verbs/query-analytics.ts';
import { runFunnel } from '../src/modules/analytics/verbs/run-funnel.ts';
import { createRuntime, type Runtime } from '../src/runtime.ts';
import { machineLine } from './lib/compare.ts';
import { percentile } from './lib/join-sockets.ts';
import { createBenchTenant } from './lib/tenant.ts';
import { withThrowawayDatabase } from './lib/throwaway-db.ts';

const DURATION_MS = Number(process.env.BENCH_DURATION_S ?? 5) * 1000;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 5_000_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 100);
const TENANTS = 50;
const ONLY = process.env.BENCH_ONLY;
const BATCH = 100;
const DAY = 86_400_000;

const out = (line: string) => process.stdout.write(`${line}\n`);
const fmt = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));

let sequence = 0;
/** A batch of 100 events as a browser SDK would send them (each with its own messageId). */
function batchOf(): Record<string, unknown>[] {
  const now = Date.now();
  return Array.from({ length: BATCH }, (_, i) => {
    const n = sequence++;
    return {
      event: ['Show Watched', 'Bid Placed', 'Item Viewed', 'Joined'][n % 4],
      actor: { type: 'end_user', id: `bench:u${n % 5000}`, identityProvider: 'bench' },
      roomId: `room-${n % 20}`,
      messageId: `m-${process.pid}-${n}`,
      timestamp: new Date(now - (i % 60) * 1000).toISOString(),
      properties: { amount: n % 1000, plan: n % 3 === 0 ? 'pro' : 'free', path: `/shows/${n % 50}` },
    };
  });
}

/** Runs `CONNECTIONS` loops of `once` for DURATION_MS; answers batches per second. */
async function loop(once: () => Promise<void>): Promise<number> {
  const end = performance.now() + DURATION_MS;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) {
        await once();
        done++;
      }
    }),
  );
  return done / (DURATION_MS / 1000);
}

/** The same rows the verb writes, as one multi-row INSERT of bound values through the same driver. */
function bareInsert(db: Database, tenantId: string): () => Promise<void> {
  return async () => {
    const rows = batchOf();
    const params: unknown[] = [];
    const values = rows.map((r) => {
      const at = params.length;
      params.push(
        tenantId,
        r.event,
        r.timestamp,
        new Date().toISOString(),
        r.messageId,
        (r.actor as { id: string }).id,
        (r.actor as { id: string }).id,
        r.roomId,
        JSON.stringify(r.properties),
      );
      return `(${Array.from({ length: 9 }, (_, k) => `$${at + k + 1}`).join(', ')})`;
    });
    await db.query(
      `insert into analytics_events (tenant_id, event, ts, received_at, message_id, actor_id, actor_key, room_id, properties)
       values ${values.join(', ')}`,
      params,
    );
  };
}

async function ingestion(name: string, runtime: Runtime): Promise<void> {
  const { tenantId } = await createBenchTenant(runtime.db);
  const ctx = systemContext({ ...runtime.app.services, log: runtime.app.log }, tenantId);
  const verb = async () => {
    const answer = await ingestEvents(ctx, { batch: batchOf() });
    if (answer.accepted !== BATCH) throw new Error(`accepted ${answer.accepted} of ${BATCH}`);
  };
  await verb(); // creates the month's partition and warms up
  const bare = bareInsert(runtime.db, tenantId);
  await bare();
  const bareRate = await loop(bare);
  const verbRate = await loop(verb);
  out(
    `${name.padEnd(10)} ingest ${fmt(verbRate * BATCH)} events/s   bare INSERT ${fmt(bareRate * BATCH)} events/s   ratio ${(verbRate / bareRate).toFixed(2)}   (batches of ${BATCH}, ${CONNECTIONS} at once, ${DURATION_MS / 1000} s each)`,
  );
}

/** BENCH_EVENTS events of 50 tenants over the last 90 days, with their rollups, made in SQL. */
async function load(db: Database, tenants: string[]): Promise<void> {
  const started = performance.now();
  const now = Date.now();
  await db.query('select analytics_ensure_partitions($1::date, $2::date)', [
    new Date(now - 91 * DAY).toISOString().slice(0, 10),
    new Date(now + DAY).toISOString().slice(0, 10),
  ]);
  // Loading without the scan index and building it afterwards is several times faster than keeping it.
  await db.exec('drop index analytics_events_scan');
  const perTenant = Math.floor(EVENTS / tenants.length);
  const chunk = 500_000;
  for (let offset = 0; offset < EVENTS; offset += chunk) {
    const n = Math.min(chunk, EVENTS - offset);
    await db.query(
      `insert into analytics_events (tenant_id, event, ts, received_at, message_id, actor_id, actor_key, room_id, properties)
       select t.id, e.name, e.ts, e.ts, 'g' || g, e.actor, e.actor, 'room-' || (g % 20),
              jsonb_build_object('amount', g % 1000, 'plan', case when g % 3 = 0 then 'pro' else 'free' end)
         from generate_series($1::bigint, $2::bigint) as g
        cross join lateral (select ($3::text[])[1 + (g / $4) % $5] as id) t
        cross join lateral (
          select (array['Show Watched', 'Show Watched', 'Show Watched', 'Show Watched', 'Joined', 'Joined', 'Joined',
                        'Bid Placed', 'Bid Placed', 'Item Viewed'])[1 + abs(hashint8(g)) % 10] as name,
                 to_timestamp($6::float8 / 1000 - (abs(hashint8(g * 7)) % (90 * 86400))) as ts,
                 'bench:u' || (abs(hashint8(g * 13)) % 2000) as actor) e`,
      [offset, offset + n - 1, tenants, perTenant, tenants.length, now],
    );
  }
  await db.exec('create index analytics_events_scan on analytics_events (tenant_id, event, ts)');
  await db.query(
    `insert into analytics_hourly (tenant_id, event, hour, events)
     select tenant_id, event, date_trunc('hour', ts at time zone 'UTC') at time zone 'UTC', count(*)
       from analytics_events group by 1, 2, 3
     on conflict (tenant_id, event, hour) do update set events = analytics_hourly.events + excluded.events`,
  );
  await db.exec('analyze analytics_events; analyze analytics_hourly');
  out(
    `loaded ${EVENTS} events of ${tenants.length} tenants over 90 days in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
}

async function latency(
  name: string,
  run: (tenantId: string) => Promise<unknown>,
  tenants: string[],
): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < QUERIES; i++) {
    const tenant = tenants[i % tenants.length] ?? '';
    const started = performance.now();
    await run(tenant);
    times.push(performance.now() - started);
  }
  out(
    `  ${name.padEnd(44)} p50 ${percentile(times, 50).toFixed(1)} ms   p99 ${percentile(times, 99).toFixed(1)} ms   (${QUERIES} queries)`,
  );
}

async function queries(runtime: Runtime): Promise<void> {
  const tenants: string[] = [];
  for (let i = 0; i < TENANTS; i++) tenants.push((await createBenchTenant(runtime.db)).tenantId);
  await load(runtime.db, tenants);
  const host = { ...runtime.app.services, log: runtime.app.log };
  const ctx = (tenantId: string) => systemContext(host, tenantId);
  const base = { metrics: ['events'], timezone: 'UTC', breakdownLimit: 10 };
  out(`queries (${EVENTS / TENANTS} events per tenant):`);
  await latency(
    '90-day daily count, Europe/Berlin (rollups)',
    (t) =>
      queryAnalytics(ctx(t), {
        ...base,
        event: 'Show Watched',
        dateRange: { preset: 'last_90d' },
        interval: 'day',
        timezone: 'Europe/Berlin',
      }),
    tenants,
  );
  await latency(
    '90-day daily uniques (raw events)',
    (t) =>
      queryAnalytics(ctx(t), {
        ...base,
        metrics: ['uniques'],
        event: 'Show Watched',
        dateRange: { preset: 'last_90d' },
        interval: 'day',
      }),
    tenants,
  );
  await latency(
    'breakdown: uniques by room, 30 days, top 10',
    (t) =>
      queryAnalytics(ctx(t), {
        ...base,
        metrics: ['uniques', 'events'],
        dateRange: { preset: 'last_30d' },
        breakdown: 'roomId',
      }),
    tenants,
  );
  await latency(
    '4-step funnel, 7 days, 1-day window',
    (t) =>
      runFunnel(ctx(t), {
        steps: [
          { event: 'Joined' },
          { event: 'Show Watched' },
          { event: 'Bid Placed' },
          { event: 'Item Viewed' },
        ],
        dateRange: { preset: 'last_7d' },
        timezone: 'UTC',
        windowSeconds: 86_400,
      }),
    tenants,
  );
}

async function main(): Promise<void> {
  out(machineLine());
  const config = (env: Record<string, string | undefined>) =>
    loadConfig({ SVC_ENV: 'test', LOG_LEVEL: 'silent', SVC_DATA_DIR: '.svc-bench-data', ...env });
  if (ONLY !== 'postgres') {
    const runtime = await createRuntime(config({}), { inMemory: true, workers: false, clock: systemClock });
    try {
      await ingestion('embedded', runtime);
    } finally {
      await runtime.close();
    }
  }
  if (ONLY !== 'embedded') {
    await withThrowawayDatabase('svc_bench_analytics', async (url) => {
      const runtime = await createRuntime(config({ DATABASE_URL: url }), {
        workers: false,
        clock: systemClock,
      });
      try {
        await ingestion('postgres', runtime);
        await queries(runtime);
      } finally {
        await runtime.close();
      }
    });
  }
  out('targets: ingest >= 0.5 of the bare INSERT; 90-day daily counts under 50 ms');
}

await main();
