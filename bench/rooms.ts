// `npm run bench:rooms`: create-room and list-rooms through the whole service, on the embedded database
// and on PostgreSQL, against baselines through the same driver in the same run (what the database itself
// allows): a bare single-row INSERT loop, and a bare SELECT of the same 20 rows list-rooms answers with. PostgreSQL is measured in a throwaway database on BENCH_PG_URL
// (default postgres://postgres@127.0.0.1:5432/postgres); it is skipped with a note when unreachable.

import type { Database } from '../src/core/db/database.ts';
import { newId } from '../src/modules/rooms/ids.ts';
import { machineLine } from './lib/compare.ts';
import { loadSettings, measure } from './lib/load.ts';
import { startService } from './lib/targets.ts';
import { createBenchTenant } from './lib/tenant.ts';
import { withThrowawayDatabase } from './lib/throwaway-db.ts';

const settings = loadSettings({ connections: 10, durationSeconds: 5, warmupSeconds: 1 });

/** `statement` run back to back by `concurrency` loops for the bench's duration: statements per second. */
async function bareLoop(
  _db: Database,
  concurrency: number,
  statement: () => Promise<unknown>,
): Promise<number> {
  const until = Date.now() + settings.durationSeconds * 1000;
  let count = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        await statement();
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
    // Reads run on current statistics, as the embedded database's maintenance worker and PostgreSQL's
    // autovacuum keep them a few seconds to a minute after a burst of writes.
    await service.db.exec('analyze rooms');
    const list = await measure(
      service.baseUrl,
      { method: 'GET', path: '/v1/rooms?limit=20', headers },
      settings,
    );
    const { db } = service;
    const inserts = await bareLoop(db, settings.connections, () =>
      db.query('insert into rooms (tenant_id, id, name, metadata) values ($1, $2, $3, $4)', [
        tenantId,
        newId('room', Date.now()),
        null,
        '{}',
      ]),
    );
    // The rows list-rooms answers with (the tenant's newest 20), read without the service around it.
    await db.exec('analyze rooms');
    const selects = await bareLoop(db, settings.connections, () =>
      db.query(
        'select id, seq, name, metadata, created_at, updated_at from rooms where tenant_id = $1 order by seq desc limit 20',
        [tenantId],
      ),
    );
    const fmt = (n: number) => n.toFixed(0).padStart(8);
    process.stdout.write(
      [
        `\n${label}  (${settings.connections} connections, ${settings.durationSeconds} s each)`,
        `  create-room   ${fmt(create.requestsPerSecond)} req/s  p50 ${create.latencyP50Ms} ms  p99 ${create.latencyP99Ms} ms  errors ${create.errors} non-2xx ${create.non2xx}`,
        `  list-rooms    ${fmt(list.requestsPerSecond)} req/s  p50 ${list.latencyP50Ms} ms  p99 ${list.latencyP99Ms} ms  errors ${list.errors} non-2xx ${list.non2xx}`,
        `  bare INSERT   ${fmt(inserts)} rows/s (same driver, ${settings.connections} concurrent loops)`,
        `  bare SELECT   ${fmt(selects)} queries/s (the same 20 rows, same driver, ${settings.connections} concurrent loops)`,
        `  ratio create-room / bare INSERT = ${(create.requestsPerSecond / inserts).toFixed(2)}`,
        `  ratio list-rooms / bare SELECT  = ${(list.requestsPerSecond / selects).toFixed(2)}`,
        '',
      ].join('\n'),
    );
  } finally {
    await service.close();
  }
}

process.stdout.write(`bench:rooms  ${machineLine()}\n`);
await run('embedded (PGlite)', {});

await withThrowawayDatabase('svc_bench', (url) => run('PostgreSQL', { DATABASE_URL: url }));
