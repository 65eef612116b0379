import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { createTestTenant } from '../../../../test/factories.ts';
import { buildTestApp, call, type TestApp, testConfig } from '../../../../test/helper.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import type { Database } from '../../../core/db/database.ts';
import { systemTx } from '../../../core/db/tenant-tx.ts';
import { openDatabase } from '../../../runtime.ts';
import { type Receiver, startReceiver } from './support.ts';
import { receiptCounts, type ScratchDatabase, scratchDatabase } from './system-support.ts';

/**
 * Two app instances, each with its own webhook worker, on one database. Events are produced through both;
 * with healthy receivers every delivery must arrive exactly once (counted by X-SVC-Delivery), whichever
 * instance claims it. The receivers are counted after both instances stopped, so a late duplicate from an
 * attempt still in flight cannot slip past the count.
 */

const SECRET = 'multi-instance-secret-01';
/**
 * Attempts here must not time out: a timed-out attempt the receiver did get is retried, and that repeat is
 * at-least-once working as designed, not a double claim. A busy test process (PGlite runs on its thread)
 * can delay a response past the 10 s default, so the timeout is generous.
 */
const WEBHOOK_TIMEOUT_MS = 60_000;
const EVENTS = 120;
const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';

interface Delivery {
  id: string;
  eventId: string;
  state: string;
}

async function deliveriesOf(t: TestApp, apiKey: string, endpointId: string): Promise<Delivery[]> {
  const all: Delivery[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const res = await call(t.app, {
      method: 'GET',
      url: `/v1/webhooks/${endpointId}/deliveries?limit=100${query}`,
      headers: { 'x-api-key': apiKey },
    });
    assert.equal(res.statusCode, 200, res.body);
    const page = res.json<{ data: Delivery[]; nextCursor: string | null }>();
    all.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return all;
}

async function runTwoInstances(
  a: TestApp,
  b: TestApp,
  stop: () => Promise<void>,
  audit: Database,
): Promise<string> {
  const receivers: Receiver[] = await Promise.all(
    [0, 1, 2].map(() =>
      startReceiver((_req, res) => {
        // A little jitter so the instances' attempts interleave.
        setTimeout(() => res.writeHead(200).end('ok'), Math.floor(Math.random() * 5));
      }),
    ),
  );
  try {
    const tenant = await createTestTenant(a);
    const headers = { 'x-api-key': tenant.apiKey };
    const endpointIds: string[] = [];
    for (const [i, receiver] of receivers.entries()) {
      const res = await call(i % 2 === 0 ? a.app : b.app, {
        method: 'POST',
        url: '/v1/webhooks',
        headers,
        payload: { url: receiver.url, secret: SECRET, eventTypes: i === 0 ? null : ['app.multi.*'] },
      });
      assert.equal(res.statusCode, 201, res.body);
      endpointIds.push(res.json<{ id: string }>().id);
    }

    // Events through both instances, a few at a time.
    const eventIds: string[] = [];
    for (let batch = 0; batch < EVENTS; batch += 8) {
      const posted = await Promise.all(
        Array.from({ length: Math.min(8, EVENTS - batch) }, (_, k) =>
          call((batch + k) % 2 === 0 ? a.app : b.app, {
            method: 'POST',
            url: '/v1/events',
            headers,
            payload: { type: 'app.multi.happened', data: { n: batch + k } },
          }),
        ),
      );
      for (const res of posted) {
        assert.equal(res.statusCode, 201, res.body);
        eventIds.push(res.json<{ id: string }>().id);
      }
    }

    const final = await eventually(
      () => `${EVENTS * receivers.length} deliveries to be delivered`,
      async () => {
        const lists: Delivery[][] = [];
        for (const [i, endpointId] of endpointIds.entries()) {
          const list = await deliveriesOf(i % 2 === 0 ? b : a, tenant.apiKey, endpointId);
          if (list.length < EVENTS || list.some((d) => d.state !== 'delivered')) return undefined;
          lists.push(list);
        }
        return lists;
      },
      { timeoutMs: 120_000, stepMs: 100 },
    );

    // Stop both instances (their workers finish what is in flight) before counting.
    await stop();

    for (const [i, receiver] of receivers.entries()) {
      const deliveries = final[i] ?? [];
      assert.deepEqual(
        deliveries.map((d) => d.eventId).sort(),
        [...eventIds].sort(),
        `endpoint ${i}: one delivery per event`,
      );
      const counts = receiptCounts(receiver);
      assert.deepEqual(
        [...counts.keys()].sort(),
        deliveries.map((d) => d.id).sort(),
        `endpoint ${i}: received exactly its deliveries`,
      );
      const repeated = [...counts].filter(([, n]) => n !== 1);
      assert.deepEqual(
        repeated,
        [],
        `endpoint ${i}: every delivery arrived exactly once; attempts of the first repeats: ${await attemptsOf(
          audit,
          repeated.slice(0, 3).map(([id]) => id),
        )}`,
      );
    }
    return tenant.tenantId;
  } finally {
    await Promise.all(receivers.map((r) => r.close()));
  }
}

async function attemptsOf(db: Database, deliveryIds: string[]): Promise<string> {
  const { rows } = await systemTx(db, (tx) =>
    tx.query(
      `select delivery_id, attempt, started_at, duration_ms, status_code, error_class, error_message, worker
         from webhook_attempts where delivery_id = any($1::text[]) order by delivery_id, attempt`,
      [deliveryIds],
    ),
  );
  return JSON.stringify(rows);
}

async function workersThatDelivered(db: Database, tenantId: string): Promise<string> {
  const { rows } = await systemTx(db, (tx) =>
    tx.query<{ worker: string; n: number }>(
      'select worker, count(*)::int as n from webhook_attempts where tenant_id = $1 group by worker order by worker',
      [tenantId],
    ),
  );
  return rows.map((r) => `${r.worker}: ${r.n}`).join(', ');
}

/** Closes each instance once, whether the test got that far or not. */
function closer(...instances: TestApp[]) {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= Promise.allSettled(instances.map((i) => i.close())).then((results) => {
      const failed = results.find((r) => r.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
    });
    return closing;
  };
}

describe('webhooks on two app instances', () => {
  let scratch: ScratchDatabase | undefined;
  after(async () => {
    await scratch?.drop();
  });

  test('two instances on one PostgreSQL, each its own pool and worker: each delivery arrives exactly once', {
    skip: onPostgres ? false : 'needs DATABASE_URL (a PostgreSQL server)',
    timeout: 240_000,
  }, async (t) => {
    // A database of its own: other test files' workers would otherwise claim these deliveries too.
    scratch = await scratchDatabase('multi');
    const config = testConfig({
      webhookTimeoutMs: WEBHOOK_TIMEOUT_MS,
      ...(scratch === undefined ? {} : { databaseUrl: scratch.url }),
    });
    const a = await buildTestApp({ config, webhookWorker: true });
    const b = await buildTestApp({ config, webhookWorker: true });
    const stop = closer(a, b);
    const audit = await openDatabase(config);
    try {
      const tenantId = await runTwoInstances(a, b, stop, audit);
      t.diagnostic(`attempts per worker: ${await workersThatDelivered(audit, tenantId)}`);
    } finally {
      await stop();
      await audit.close();
    }
  });

  test('two instances sharing one embedded database handle: each delivery arrives exactly once', {
    skip: onPostgres ? 'DATABASE_URL is set: the PostgreSQL test covers two instances' : false,
    timeout: 240_000,
  }, async (t) => {
    const db = await openDatabase(testConfig(), { inMemory: true });
    try {
      const config = { webhookTimeoutMs: WEBHOOK_TIMEOUT_MS };
      const a = await buildTestApp({ db, config, webhookWorker: true });
      const b = await buildTestApp({ db, config, webhookWorker: true });
      const stop = closer(a, b);
      try {
        const tenantId = await runTwoInstances(a, b, stop, db);
        t.diagnostic(`attempts per worker: ${await workersThatDelivered(db, tenantId)}`);
      } finally {
        await stop();
      }
    } finally {
      await db.close();
    }
  });
});
