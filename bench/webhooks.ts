// `npm run bench:webhooks`: webhook deliveries through the whole service to a local 2xx receiver, on the
// embedded database and on PostgreSQL (a throwaway database on BENCH_PG_URL, default
// postgres://postgres@127.0.0.1:5432/postgres; skipped with a note when unreachable).
//
//   drain   a backlog of deliveries made due at once: deliveries/s from the first receipt to the last.
//   rate    events POSTed at a fixed rate, evenly spaced (lib/paced-load.ts, a child process), to endpoints
//           that each match them: deliveries/s received and commit-to-receipt latency (event created_at ->
//           receiver clock).
//   burst   the highest rate again, but each second's events sent at once at its start (paced-load.ts).
//
// The receiver runs in a child process of its own, so its clock reads are not delayed by the service's
// event loop. Goal on PostgreSQL (issue 5): >= 1,000 deliveries/s with p99 < 200 ms at that rate.
// BENCH_WEBHOOK_ENDPOINTS (4), BENCH_DURATION_S (10), and per database BENCH_WEBHOOK_BACKLOG /
// BENCH_WEBHOOK_RATES (deliveries; PostgreSQL 6000 / 250,1000 per s) and BENCH_WEBHOOK_EMBEDDED_BACKLOG /
// BENCH_WEBHOOK_EMBEDDED_RATES (1000 / 25,100 per s: the embedded database is one in-process connection)
// override the defaults; BENCH_WEBHOOK_ONLY=embedded|postgres runs one of the two. SVC_WEBHOOK_* variables
// are passed to the service (SVC_WEBHOOK_TENANT_CONCURRENCY: the one bench tenant's share of the worker).
// BENCH_WEBHOOK_QUERIES=1 counts the PostgreSQL round trips of each rate run (every pg client query of the
// process, the event POSTs' included) and prints them per delivery, by statement kind, with the mean
// time from sending each to its answer. BENCH_WEBHOOK_PROFILE=<dir> writes a CPU profile of the service's
// process for each rate and burst run (from the first event to the last receipt) into <dir>.
import { fork } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { systemClock } from '../src/core/clock.ts';
import type { Database } from '../src/core/db/database.ts';
import type { PacedResult, PacedRun } from './lib/paced-load.ts';
import { withThrowawayDatabase } from './lib/throwaway-db.ts';

interface Receipt {
  eventType: string;
  deliveryId: string;
  eventCreatedAt: number;
  receivedAt: number;
}

type ReceiverMessage = { type: 'collect' } | { type: 'reset' };

type ReceiverReport = { type: 'listening'; port: number } | { type: 'receipts'; receipts: Receipt[] };

/** Child process: answers every POST with 200 at once and records when it arrived. */
function runReceiver(): void {
  const report = (message: ReceiverReport) => process.send?.(message);
  let receipts: Receipt[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const receivedAt = Date.now();
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 }).end('ok');
      let eventCreatedAt = Number.NaN;
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { created_at?: string };
        eventCreatedAt = Date.parse(body.created_at ?? '');
      } catch {}
      const header = req.headers['x-svc-delivery'];
      const type = req.headers['x-svc-event'];
      receipts.push({
        eventType: typeof type === 'string' ? type : '',
        deliveryId: typeof header === 'string' ? header : '',
        eventCreatedAt,
        receivedAt,
      });
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    report({ type: 'listening', port: (server.address() as AddressInfo).port });
  });
  process.on('message', (message: ReceiverMessage) => {
    if (message.type === 'collect') report({ type: 'receipts', receipts });
    if (message.type === 'reset') receipts = [];
  });
  process.on('disconnect', () => process.exit(0));
}

/** Counts every pg client query of this process by statement kind (its first words). */
async function countRoundTrips(): Promise<Map<string, number>> {
  const { default: pg } = await import('pg');
  const counts = new Map<string, number>();
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0];
    const text = typeof first === 'string' ? first : ((first as { text?: string } | undefined)?.text ?? '');
    const kind = text.replace(/\s+/g, ' ').trim().slice(0, 60);
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
    const started = performance.now();
    const result = original.apply(this, args);
    if (result instanceof Promise) {
      const took = (ms: number) => counts.set(`ms ${kind}`, (counts.get(`ms ${kind}`) ?? 0) + ms);
      result.then(
        () => took(performance.now() - started),
        () => took(performance.now() - started),
      );
    }
    return result;
  };
  return counts;
}

if (process.argv[2] === 'receiver') runReceiver();
else await main();

async function main(): Promise<void> {
  const [
    { DEV_ISSUER },
    { systemTx, tenantTx },
    { newId },
    { tenantSetup },
    { createApiKey },
    { createTenant },
    { resolveHostedUser },
    { enqueueDeliveries },
    { machineLine },
    { startService },
  ] = await Promise.all([
    import('../src/core/auth/dev-issuer.ts'),
    import('../src/core/db/tenant-tx.ts'),
    import('../src/core/ids.ts'),
    import('../src/app.ts'),
    import('../src/core/tenancy/api-keys.ts'),
    import('../src/core/tenancy/tenants.ts'),
    import('../src/core/tenancy/users.ts'),
    import('../src/modules/webhooks/index.ts'),
    import('./lib/compare.ts'),
    import('./lib/targets.ts'),
  ]);

  const number = (name: string, fallback: number): number => {
    const raw = process.env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value <= 0)
      throw new Error(`${name}: expected a whole number, got ${raw}`);
    return value;
  };
  const numbers = (name: string, fallback: number[]): number[] => {
    const raw = process.env[name];
    if (raw === undefined || raw === '') return fallback;
    const values = raw.split(',').map(Number);
    if (values.some((v) => !Number.isInteger(v) || v <= 0)) {
      throw new Error(`${name}: expected whole numbers separated by commas, got ${raw}`);
    }
    return values;
  };
  const ENDPOINTS = number('BENCH_WEBHOOK_ENDPOINTS', 4);
  const roundTrips = process.env.BENCH_WEBHOOK_QUERIES === '1' ? await countRoundTrips() : undefined;
  const DURATION_S = number('BENCH_DURATION_S', 10);
  /** Waits are bounded so a stuck run ends with what it has; they are not targets. */
  const DRAIN_LIMIT_MS = 180_000;
  const SETTLE_LIMIT_MS = 60_000;

  const receiver = fork(import.meta.filename, ['receiver'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const receiverPort = await new Promise<number>((resolve, reject) => {
    receiver.once('error', reject);
    receiver.once('exit', (code) => reject(new Error(`the receiver exited (${code})`)));
    receiver.on('message', (message: ReceiverReport) => {
      if (message.type === 'listening') resolve(message.port);
    });
  });
  const collect = () =>
    new Promise<Receipt[]>((resolve) => {
      const onMessage = (message: ReceiverReport) => {
        if (message.type !== 'receipts') return;
        receiver.off('message', onMessage);
        resolve(message.receipts);
      };
      receiver.on('message', onMessage);
      receiver.send({ type: 'collect' } satisfies ReceiverMessage);
    });
  const resetReceipts = () => receiver.send({ type: 'reset' } satisfies ReceiverMessage);

  const loader = fork(path.join(import.meta.dirname, 'lib/paced-load.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const paced = (load: PacedRun) =>
    new Promise<PacedResult>((resolve, reject) => {
      loader.once(
        'message',
        (message: { kind: 'result'; result: PacedResult } | { kind: 'failed'; message: string }) =>
          message.kind === 'result' ? resolve(message.result) : reject(new Error(message.message)),
      );
      loader.send(load);
    });

  const percentile = (sorted: number[], p: number): number =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** Receipts of `type` once `expected` arrived or none came for `quietMs` (bounded by `limitMs`). */
  async function receiptsUntil(
    type: string,
    expected: number | (() => Promise<number>),
    limitMs: number,
    quietMs = 10_000,
  ): Promise<Receipt[]> {
    const deadline = Date.now() + limitMs;
    let last = -1;
    let lastChange = Date.now();
    for (;;) {
      const receipts = (await collect()).filter((r) => r.eventType === type);
      const target = typeof expected === 'number' ? expected : await expected();
      if (receipts.length >= target || Date.now() > deadline) return receipts;
      if (receipts.length !== last) {
        last = receipts.length;
        lastChange = Date.now();
      } else if (Date.now() - lastChange > quietMs) return receipts;
      await sleep(200);
    }
  }

  interface RunSettings {
    /** Deliveries queued for the drain. */
    backlog: number;
    /** Deliveries per second offered in the fixed-rate runs, one run each. */
    rates: number[];
  }

  /** Deliveries of `type` the service has queued (what the receiver should get). */
  async function queued(db: Database, type: string): Promise<number> {
    const { rows } = await systemTx(db, (tx) =>
      tx.query<{ n: number }>('select count(*)::int as n from webhook_deliveries where event_type = $1', [
        type,
      ]),
    );
    return rows[0]?.n ?? 0;
  }

  /** Deliveries of `type` not yet delivered, by state (a settled run has none). */
  async function unfinished(db: Database, type: string): Promise<string> {
    const { rows } = await systemTx(db, (tx) =>
      tx.query<{ state: string; n: number; leased: number }>(
        `select state, count(*)::int as n, count(lease_owner)::int as leased from webhook_deliveries
          where event_type = $1 and state <> 'delivered' group by state`,
        [type],
      ),
    );
    return rows.length === 0 ? 'none' : rows.map((r) => `${r.n} ${r.state} (${r.leased} leased)`).join(', ');
  }

  /** Where the latency goes: commit (event created_at) -> claimed by the worker -> received. */
  async function latencySplit(db: Database, type: string, receipts: Receipt[]): Promise<string> {
    const { rows } = await systemTx(db, (tx) =>
      tx.query<{ id: string; created_at: Date; started_at: Date }>(
        `select d.id, d.created_at, a.started_at from webhook_deliveries d
           join webhook_attempts a on a.tenant_id = d.tenant_id and a.delivery_id = d.id and a.error_class is null
          where d.event_type = $1`,
        [type],
      ),
    );
    const received = new Map(receipts.map((r) => [r.deliveryId, r.receivedAt]));
    const toClaim: number[] = [];
    const toReceipt: number[] = [];
    for (const row of rows) {
      const claimedAt = new Date(row.started_at).getTime();
      toClaim.push(claimedAt - new Date(row.created_at).getTime());
      const at = received.get(row.id);
      if (at !== undefined) toReceipt.push(at - claimedAt);
    }
    const fmt = (values: number[]) => {
      const sorted = values.sort((a, b) => a - b);
      return `p50 ${percentile(sorted, 50)} ms p99 ${percentile(sorted, 99)} ms`;
    };
    return `commit -> claimed ${fmt(toClaim)}; claimed -> received ${fmt(toReceipt)}`;
  }

  /** Failed attempts by error class: a healthy run has none. */
  async function failedAttempts(db: Database): Promise<string> {
    const { rows } = await systemTx(db, (tx) =>
      tx.query<{ error_class: string; n: number; message: string }>(
        `select error_class, count(*)::int as n, min(error_message) as message from webhook_attempts
          where error_class is not null group by error_class order by error_class`,
      ),
    );
    return rows.length === 0 ? 'none' : rows.map((r) => `${r.n} ${r.error_class} (${r.message})`).join(', ');
  }

  async function run(
    label: string,
    env: Record<string, string | undefined>,
    { backlog: BACKLOG, rates: RATES }: RunSettings,
  ): Promise<void> {
    // Development settings: outside production loopback receivers are allowed (SSRF rules are off).
    // SVC_WEBHOOK_* from the bench's own environment reach the service (e.g. SVC_WEBHOOK_TENANT_CONCURRENCY).
    const webhookEnv = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => name.startsWith('SVC_WEBHOOK_')),
    );
    const service = await startService({ SVC_ENV: 'development', ...webhookEnv, ...env });
    try {
      const system = { db: service.db, clock: systemClock };
      const owner = await resolveHostedUser(system, {
        provider: DEV_ISSUER,
        subject: `bench-${Date.now()}`,
        email: undefined,
        emailVerified: false,
        name: undefined,
      });
      const tenant = await createTenant(
        system,
        { name: 'bench', workspaceType: 'sandbox', ownerUserId: owner.id },
        tenantSetup(),
      );
      const { key } = await createApiKey(
        { db: service.db, tenantId: tenant.id, clock: service.app.services.clock },
        { name: 'bench', scopes: ['*'], knownScopes: [] },
      );
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      for (let i = 0; i < ENDPOINTS; i++) {
        const res = await fetch(`${service.baseUrl}/v1/webhooks`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            url: `http://127.0.0.1:${receiverPort}/hook/${i}`,
            secret: 'bench-secret-0123456789',
            eventTypes: ['app.bench.*'],
          }),
        });
        if (res.status !== 201) throw new Error(`POST /v1/webhooks: ${res.status} ${await res.text()}`);
      }
      process.stdout.write(`\n${label}  (${ENDPOINTS} endpoints on one loopback receiver process)\n`);

      // Drain: queue the backlog due in the far future (so nothing starts while it is written), then make
      // it all due at once.
      const events = Math.ceil(BACKLOG / ENDPOINTS);
      const later = Date.now() + 3_600_000;
      for (let done = 0; done < events; ) {
        const batch = Math.min(200, events - done);
        await tenantTx(service.db, { tenantId: tenant.id }, async (tx) => {
          for (let k = 0; k < batch; k++) {
            await enqueueDeliveries(
              tx,
              {
                id: newId('event', Date.now()),
                tenantId: tenant.id,
                type: 'app.bench.backlog',
                data: { n: done + k },
                createdAt: new Date(),
              },
              { now: later },
            );
          }
        });
        done += batch;
      }
      resetReceipts();
      await tenantTx(service.db, { tenantId: tenant.id }, (tx) =>
        tx.query(`update webhook_deliveries set next_attempt_at = now() where state = 'pending'`),
      );
      service.app.services.workers.wake('webhooks');
      const drained = await receiptsUntil('app.bench.backlog', events * ENDPOINTS, DRAIN_LIMIT_MS);
      const times = drained.map((r) => r.receivedAt).sort((a, b) => a - b);
      const first = times[0] ?? 0;
      const lastAt = times[times.length - 1] ?? 0;
      const drainRate = times.length > 1 ? ((times.length - 1) * 1000) / Math.max(1, lastAt - first) : 0;
      const unique = new Set(drained.map((r) => r.deliveryId)).size;
      process.stdout.write(
        `  drain   ${drained.length}/${events * ENDPOINTS} deliveries in ${((lastAt - first) / 1000).toFixed(1)} s` +
          ` = ${drainRate.toFixed(0)} deliveries/s (first to last receipt; ${drained.length - unique} repeats)\n`,
      );

      // Fixed rates: POST /v1/events at rate / ENDPOINTS events/s, evenly spaced (open loop, paced-load.ts);
      // each event fans out to every endpoint. Then one burst run at the highest rate (each second's events
      // due at once at the start of the second).
      const runs = [
        ...RATES.map((rate) => ({ rate, burst: false })),
        ...(RATES.length > 0 ? [{ rate: Math.max(...RATES), burst: true }] : []),
      ];
      for (const [round, { rate, burst }] of runs.entries()) {
        resetReceipts();
        roundTrips?.clear();
        const type = `app.bench.run${round}_${rate}`;
        const eventRate = Math.max(1, Math.round(rate / ENDPOINTS));
        const body = JSON.stringify({ type, data: { bench: true } });
        const url = `${service.baseUrl}/v1/events`;
        const started = Date.now();
        const profiling = profileStart();
        const load = await paced({
          url,
          method: 'POST',
          headers,
          body,
          rate: eventRate,
          burst,
          seconds: DURATION_S,
          // A burst's events all sent at once, not queued behind a few connections in the generator.
          connections: burst ? eventRate : 64,
        });
        // The load covers DURATION_S seconds (a burst run's last second starts with its burst), or longer
        // when the last answers came later.
        const publishedFor = Math.max(DURATION_S, (Date.now() - started) / 1000);
        const tripsAtEnd = roundTrips === undefined ? undefined : new Map(roundTrips);
        // Requests still under way when the load ended commit a little later: count the queue when settled.
        const receipts = await receiptsUntil(type, () => queued(service.db, type), SETTLE_LIMIT_MS);
        await profileStop(await profiling, `${burst ? 'burst' : 'rate'}-${rate}`);
        const expected = await queued(service.db, type);
        const latencies = receipts
          .map((r) => r.receivedAt - r.eventCreatedAt)
          .filter((n) => Number.isFinite(n))
          .sort((a, b) => a - b);
        const repeats = receipts.length - new Set(receipts.map((r) => r.deliveryId)).size;
        const inWindow = receipts.filter((r) => r.receivedAt <= started + publishedFor * 1000).length;
        const what = burst ? 'burst  ' : 'rate   ';
        const how = burst ? `in bursts: ${eventRate} events at the start of each second` : 'evenly spaced';
        process.stdout.write(
          [
            `  ${what} offered ${eventRate * ENDPOINTS} deliveries/s (${eventRate} events/s x ${ENDPOINTS} endpoints, ${how}) for ${DURATION_S} s:` +
              ` ${load.ok} events accepted (${(load.ok / publishedFor).toFixed(0)}/s), POST p50 ${load.p50Ms.toFixed(0)} ms p99 ${load.p99Ms.toFixed(0)} ms,` +
              ` errors ${load.errors} non-2xx ${load.non2xx}`,
            `          received ${receipts.length - repeats}/${expected} deliveries (${repeats} repeats); ${(inWindow / publishedFor).toFixed(0)} deliveries/s while publishing` +
              ` (${((100 * inWindow) / Math.max(1, expected)).toFixed(1)} % of the accepted events' deliveries: the rate is the load generator's when 100 %)`,
            `          not delivered when the wait ended: ${await unfinished(service.db, type)}`,
            `          ${await latencySplit(service.db, type, receipts)}`,
            `          commit-to-receipt latency p50 ${percentile(latencies, 50)} ms  p90 ${percentile(latencies, 90)} ms` +
              `  p99 ${percentile(latencies, 99)} ms  max ${latencies[latencies.length - 1] ?? Number.NaN} ms`,
            ...(tripsAtEnd === undefined ? [] : [tripsLine(tripsAtEnd, receipts.length - repeats)]),
            '',
          ].join('\n'),
        );
      }
      process.stdout.write(`  failed attempts (whole run): ${await failedAttempts(service.db)}\n`);
    } finally {
      await service.close();
    }
  }

  const profileDir = process.env.BENCH_WEBHOOK_PROFILE;
  async function profileStart(): Promise<import('node:inspector').Session | undefined> {
    if (profileDir === undefined || profileDir === '') return undefined;
    const { Session } = await import('node:inspector');
    const session = new Session();
    session.connect();
    const post = (method: string) =>
      new Promise<void>((resolve, reject) =>
        session.post(method, (error) => (error === null ? resolve() : reject(error))),
      );
    await post('Profiler.enable');
    await post('Profiler.start');
    return session;
  }
  async function profileStop(session: import('node:inspector').Session | undefined, name: string) {
    if (session === undefined || profileDir === undefined) return;
    const { writeFile, mkdir } = await import('node:fs/promises');
    const profile = await new Promise<unknown>((resolve, reject) =>
      session.post('Profiler.stop', (error, result) =>
        error === null ? resolve(result.profile) : reject(error),
      ),
    );
    session.disconnect();
    await mkdir(profileDir, { recursive: true });
    const file = path.join(profileDir, `webhooks-${name}-${Date.now()}.cpuprofile`);
    await writeFile(file, JSON.stringify(profile));
    process.stdout.write(`          CPU profile: ${file}\n`);
  }

  /** Round trips per delivery while publishing, the most frequent statement kinds first. */
  function tripsLine(trips: Map<string, number>, deliveries: number): string {
    const counted = [...trips].filter(([kind]) => !kind.startsWith('ms '));
    const total = counted.reduce((a, [, n]) => a + n, 0);
    const per = (n: number) => (n / Math.max(1, deliveries)).toFixed(3);
    const kinds = counted
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([kind, n]) => {
        const ms = (trips.get(`ms ${kind}`) ?? 0) / n;
        return `            ${per(n).padStart(7)}  ${ms.toFixed(1).padStart(6)} ms  ${kind}`;
      });
    return [`          SQL round trips per delivery: ${per(total)} (${total} in all)`, ...kinds].join('\n');
  }

  async function runOnPostgres(): Promise<void> {
    await withThrowawayDatabase('svc_bench_webhooks', (url) =>
      run(
        'PostgreSQL',
        { DATABASE_URL: url },
        {
          backlog: number('BENCH_WEBHOOK_BACKLOG', 6000),
          rates: numbers('BENCH_WEBHOOK_RATES', [250, 1000]),
        },
      ),
    );
  }

  process.stdout.write(`bench:webhooks  ${machineLine()}\n`);
  try {
    const only = process.env.BENCH_WEBHOOK_ONLY;
    if (only !== 'postgres') {
      await run(
        'embedded (PGlite)',
        {},
        {
          backlog: number('BENCH_WEBHOOK_EMBEDDED_BACKLOG', 1000),
          rates: numbers('BENCH_WEBHOOK_EMBEDDED_RATES', [25, 100]),
        },
      );
    }
    if (only !== 'embedded') await runOnPostgres();
  } finally {
    receiver.removeAllListeners('exit');
    receiver.disconnect();
    loader.disconnect();
  }
}
