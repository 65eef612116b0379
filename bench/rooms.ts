// `npm run bench:rooms`: create-room and list-rooms through the whole service, on the embedded database
// and on PostgreSQL, each against a bare single-row INSERT loop through the same driver in the same run
// (what the database itself allows). PostgreSQL is measured in a throwaway database on BENCH_PG_URL
// (default postgres://postgres@127.0.0.1:5432/postgres); it is skipped with a note when unreachable.
import pg from 'pg';
import { newId } from '../src/core/ids.ts';
import { machineLine } from './lib/compare.ts';
import { loadSettings, measure } from './lib/load.ts';
import { startService } from './lib/targets.ts';
import { createBenchTenant } from './lib/tenant.ts';

const settings = loadSettings({ connections: 10, durationSeconds: 5, warmupSeconds: 1 });

async function insertLoop(
  db: import('../src/core/db/database.ts').Database,
  tenantId: string,
  concurrency: number,
) {
  const until = Date.now() + settings.durationSeconds * 1000;
  let count = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        await db.query('insert into rooms (tenant_id, id, name, metadata) values ($1, $2, $3, $4)', [
          tenantId,
          newId('room'),
          null,
          '{}',
        ]);
        count++;
      }
    }),
  );
  return count / settings.durationSeconds;
}

async function run(label: string, env: Record<string, string | undefined>) {
  const service = await startService(env);
  try {
    const { tenantId, apiKey: key } = await createBenchTenant(service.db);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

    const create = await measure(
      service.baseUrl,
      { method: 'POST', path: '/v1/rooms', headers, body: '{}' },
      settings,
    );
    const list = await measure(
      service.baseUrl,
      { method: 'GET', path: '/v1/rooms?limit=20', headers },
      settings,
    );
    const inserts = await insertLoop(service.db, tenantId, settings.connections);
    const fmt = (n: number) => n.toFixed(0).padStart(8);
    process.stdout.write(
      [
        `\n${label}  (${settings.connections} connections, ${settings.durationSeconds} s each)`,
        `  create-room   ${fmt(create.requestsPerSecond)} req/s  p50 ${create.latencyP50Ms} ms  p99 ${create.latencyP99Ms} ms  errors ${create.errors} non-2xx ${create.non2xx}`,
        `  list-rooms    ${fmt(list.requestsPerSecond)} req/s  p50 ${list.latencyP50Ms} ms  p99 ${list.latencyP99Ms} ms  errors ${list.errors} non-2xx ${list.non2xx}`,
        `  bare INSERT   ${fmt(inserts)} rows/s (same driver, ${settings.connections} concurrent loops)`,
        `  ratio create-room / bare INSERT = ${(create.requestsPerSecond / inserts).toFixed(2)}`,
        '',
      ].join('\n'),
    );
  } finally {
    await service.close();
  }
}

process.stdout.write(`bench:rooms  ${machineLine()}\n`);
await run('embedded (PGlite)', {});

const serverUrl = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 2000 });
let database: string | undefined;
try {
  await admin.connect();
  database = `svc_bench_${Date.now()}`;
  await admin.query(`create database ${database}`);
} catch (error) {
  process.stdout.write(`\nPostgreSQL skipped: ${(error as Error).message}\n`);
}
if (database !== undefined) {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  try {
    await run('PostgreSQL', { DATABASE_URL: url.toString() });
  } finally {
    await admin.query(`drop database if exists ${database} with (force)`);
  }
}
await admin.end().catch(() => {});
