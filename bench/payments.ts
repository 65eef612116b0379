// `npm run bench:payments`: create + confirm + capture with the test provider (three requests, one payment
// flow), through the whole service over HTTP, on the embedded database and on PostgreSQL, against a
// baseline through the same driver in the same run: a bare transaction inserting as many rows as one flow
// writes (the payment, its 3 events, a ledger transaction and its 2 postings, the tenant taking no fee:
// 7; a provider step is columns of the payment row, updated, not a row of its own). PostgreSQL is measured
// in a throwaway database on BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres); it is
// skipped with a note when unreachable. Bounded: BENCH_DURATION_S (default 5) per measurement, after
// BENCH_WARMUP_S (default 1); BENCH_CONNECTIONS concurrent loops (default 8).

import type { Database } from '../src/core/db/database.ts';
import { newId } from '../src/modules/payments/ids.ts';
import { machineLine } from './lib/compare.ts';
import { loadSettings } from './lib/load.ts';
import { startService } from './lib/targets.ts';
import { createBenchTenant } from './lib/tenant.ts';
import { withThrowawayDatabase } from './lib/throwaway-db.ts';

const settings = loadSettings({ connections: 8, durationSeconds: 5, warmupSeconds: 1 });
const ROWS_PER_FLOW = 7;

/** `flow` run back to back by `concurrency` loops for `seconds`: flows per second, and failures. */
async function loop(concurrency: number, seconds: number, flow: () => Promise<boolean>) {
  const until = Date.now() + seconds * 1000;
  let done = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        if (await flow()) done++;
        else failed++;
      }
    }),
  );
  return { perSecond: done / seconds, failed };
}

async function run(label: string, env: Record<string, string | undefined>) {
  const service = await startService(env);
  try {
    const { apiKey } = await createBenchTenant(service.db);
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${service.baseUrl}${path}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { id?: string; status?: string };
      return { status: res.status, json };
    };
    const flow = async (): Promise<boolean> => {
      const created = await post('/v1/payments', {
        amount: 1999,
        currency: 'EUR',
        captureMethod: 'manual',
        customer: { type: 'end_user', id: 'bench:buyer', identityProvider: 'bench' },
        seller: 'bench-shop',
      });
      if (created.status !== 201 || created.json.id === undefined) return false;
      const confirmed = await post(`/v1/payments/${created.json.id}/confirm`, {
        paymentMethod: 'pm_card_visa',
      });
      if (confirmed.json.status !== 'requires_capture') return false;
      const captured = await post(`/v1/payments/${created.json.id}/capture`, {});
      return captured.json.status === 'succeeded';
    };
    await loop(settings.connections, settings.warmupSeconds, flow);
    const service_ = await loop(settings.connections, settings.durationSeconds, flow);

    const { db } = service;
    await db.exec('create table if not exists bench_rows (id text primary key, data jsonb not null)');
    const bare = await loop(settings.connections, settings.durationSeconds, () =>
      bareTransaction(db).then(() => true),
    );
    const fmt = (n: number) => n.toFixed(1).padStart(8);
    process.stdout.write(
      [
        `\n${label}  (${settings.connections} concurrent loops, ${settings.durationSeconds} s each)`,
        `  create+confirm+capture  ${fmt(service_.perSecond)} payments/s (${fmt(service_.perSecond * 3)} req/s)  failed ${service_.failed}`,
        `  bare transaction        ${fmt(bare.perSecond)} tx/s of ${ROWS_PER_FLOW} single-row inserts (same driver)`,
        `  ratio payments / bare transactions = ${(service_.perSecond / bare.perSecond).toFixed(2)}`,
        '',
      ].join('\n'),
    );
  } finally {
    await service.close();
  }
}

async function bareTransaction(db: Database): Promise<void> {
  await db.transaction(async (tx) => {
    for (let i = 0; i < ROWS_PER_FLOW; i++) {
      await tx.query('insert into bench_rows (id, data) values ($1, $2)', [
        newId('payment', Date.now()),
        '{"amount":1999}',
      ]);
    }
  });
}

process.stdout.write(`bench:payments  ${machineLine()}\n`);
await run('embedded (PGlite)', {});

await withThrowawayDatabase('svc_bench', (url) => run('PostgreSQL', { DATABASE_URL: url }));
