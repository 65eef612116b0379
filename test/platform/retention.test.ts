import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MODULES } from '../../src/app.ts';
import { ConfigError } from '../../src/config.ts';
import { ManualClock } from '../../src/core/clock.ts';
import type { Database } from '../../src/core/db/database.ts';
import { systemTx } from '../../src/core/db/tenant-tx.ts';
import { activeRetention, retentionRules } from '../../src/core/retention/rules.ts';
import {
  RETENTION_LOCK,
  RetentionWorker,
  type RetentionWorkerOptions,
} from '../../src/core/retention/worker.ts';
import { chatModule } from '../../src/modules/chat/manifest.ts';
import { roomsModule } from '../../src/modules/rooms/manifest.ts';
import { openDatabase } from '../../src/runtime.ts';
import { bearer, connectSession, createTestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { eventually } from '../support/eventually.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(async () => t.close());

/** A retention worker on the test app's rules, deleting only `tenantIds`' rows (the database is shared). */
function retentionFor(
  tenantIds: string[],
  options: Partial<RetentionWorkerOptions> & { ages?: Record<string, number | null> } = {},
): RetentionWorker {
  const { ages = {}, ...rest } = options;
  return new RetentionWorker({
    db: t.db,
    clock: new ManualClock(Date.now()),
    rules: activeRetention(retentionRules(MODULES), { ages }),
    intervalMs: HOUR_MS,
    tenantIds,
    ...rest,
  });
}

async function publishEvents(apiKey: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await call(t.app, {
      method: 'POST',
      url: '/v1/events',
      headers: bearer(apiKey),
      payload: { type: 'app.retention_test', data: { i } },
    });
    assert.equal(res.statusCode, 201, res.body);
    ids.push(res.json<{ id: string }>().id);
  }
  return ids;
}

/** Moves rows' time back, as if they had been written `ms` earlier. */
async function age(db: Database, table: string, column: string, ids: string[], ms: number): Promise<void> {
  await systemTx(db, (tx) =>
    tx.query(`update ${table} set ${column} = ${column} - make_interval(secs => $2) where id = any($1)`, [
      ids,
      ms / 1000,
    ]),
  );
}

async function eventsOf(db: Database, tenantId: string): Promise<string[]> {
  const { rows } = await systemTx(db, (tx) =>
    tx.query<{ id: string }>('select id from events where tenant_id = $1 order by id', [tenantId]),
  );
  return rows.map((row) => row.id);
}

async function countRows(table: string, tenantId: string): Promise<number> {
  const { rows } = await systemTx(t.db, (tx) =>
    tx.query<{ n: number | string }>(`select count(*) as n from ${table} where tenant_id = $1`, [tenantId]),
  );
  return Number(rows[0]?.n);
}

describe('retention', () => {
  test('rows older than their retention are deleted, newer ones kept, each tenant by its own rows', async () => {
    const a = await createTestTenant(t);
    const b = await createTestTenant(t);
    const [a1 = '', a2 = '', a3 = ''] = await publishEvents(a.apiKey, 3);
    const [b1 = '', b2 = '', b3 = ''] = await publishEvents(b.apiKey, 3);
    // Events are kept 30 days: a1, a2 and b1 are past it, b2 is close but within it.
    await age(t.db, 'events', 'created_at', [a1, a2, b1], 31 * DAY_MS);
    await age(t.db, 'events', 'created_at', [b2], 29 * DAY_MS);

    const pass = await retentionFor([a.tenantId, b.tenantId]).pass();
    assert.equal(pass.ran, true);
    assert.deepEqual(await eventsOf(t.db, a.tenantId), [a3]);
    assert.deepEqual(await eventsOf(t.db, b.tenantId), [b2, b3]);
    const got = await call(t.app, { method: 'GET', url: `/v1/events/${a1}`, headers: bearer(a.apiKey) });
    assert.equal(got.statusCode, 404);
  });

  test('revocation rows and issued sessions go an hour after the tokens they concern expire, not before', async () => {
    const tenant = await createTestTenant(t);
    const session = await connectSession(t, tenant.apiKey);
    const revoked = await call(t.app, {
      method: 'POST',
      url: '/v1/runtime/sessions/revoke',
      headers: bearer(tenant.apiKey),
      payload: { sessionId: session.sessionId },
    });
    assert.equal(revoked.statusCode, 200, revoked.body);
    assert.equal(await countRows('credential_revocations', tenant.tenantId), 1);
    assert.equal(await countRows('issued_sessions', tenant.tenantId), 1);

    const clock = new ManualClock(Date.now());
    const retention = retentionFor([tenant.tenantId], { clock });
    // The token lives SVC_SESSION_TTL_SECONDS; its revocation a minute longer.
    clock.advance(t.config.sessionTtlSeconds * 1000 + 30 * MINUTE_MS);
    await retention.pass();
    assert.equal(await countRows('credential_revocations', tenant.tenantId), 1, 'kept within the hour');
    assert.equal(await countRows('issued_sessions', tenant.tenantId), 1, 'kept within the hour');
    clock.advance(HOUR_MS);
    await retention.pass();
    assert.equal(await countRows('credential_revocations', tenant.tenantId), 0);
    assert.equal(await countRows('issued_sessions', tenant.tenantId), 0);
  });

  test('a backlog is deleted in batches until none of it is left', async () => {
    const tenant = await createTestTenant(t);
    const ids = await publishEvents(tenant.apiKey, 8);
    const old = ids.slice(0, 7);
    await age(t.db, 'events', 'created_at', old, 40 * DAY_MS);
    const pass = await retentionFor([tenant.tenantId], { batchSize: 2 }).pass();
    assert.equal(pass.ran, true);
    assert.deepEqual(
      await eventsOf(t.db, tenant.tenantId),
      ids.slice(7),
      'seven old rows, two per statement',
    );
  });

  test('SVC_RETENTION overrides a default age, off keeps the rows, and a name no rule has stops start-up', async () => {
    const tenant = await createTestTenant(t);
    const [old = '', older = ''] = await publishEvents(tenant.apiKey, 2);
    await age(t.db, 'events', 'created_at', [old], 40 * DAY_MS);
    await age(t.db, 'events', 'created_at', [older], 60 * DAY_MS);
    await retentionFor([tenant.tenantId], { ages: { events: null } }).pass();
    assert.deepEqual(await eventsOf(t.db, tenant.tenantId), [old, older], 'off: nothing deleted');
    await retentionFor([tenant.tenantId], { ages: { events: 50 * DAY_MS } }).pass();
    assert.deepEqual(await eventsOf(t.db, tenant.tenantId), [old], '50 days: only the 60-day-old row goes');

    assert.throws(
      () => activeRetention(retentionRules(MODULES), { ages: { chat_change: DAY_MS } }),
      (error) => error instanceof ConfigError && /SVC_RETENTION/.test(error.message),
    );
    await assert.rejects(
      buildTestApp({ db: t.db, config: { retention: { ages: { evnets: DAY_MS }, intervalMs: HOUR_MS } } }),
      ConfigError,
    );
  });

  test('the app runs passes by itself: a minute after start, then every interval, until it closes', async () => {
    const clock = new ManualClock(Date.now());
    // Without the webhooks module: its worker would claim other test files' deliveries on a shared database.
    const app = await buildTestApp({
      db: t.db,
      clock,
      webhookWorker: true,
      modules: [roomsModule, chatModule],
    });
    try {
      const tenant = await createTestTenant(app);
      const [first = '', second = ''] = await publishEvents(tenant.apiKey, 2);
      await age(t.db, 'events', 'created_at', [first], 31 * DAY_MS);
      clock.advance(MINUTE_MS);
      await eventually('the first pass', async () => {
        const left = await eventsOf(t.db, tenant.tenantId);
        return left.length === 1 ? left : undefined;
      });
      assert.deepEqual(await eventsOf(t.db, tenant.tenantId), [second]);
      await age(t.db, 'events', 'created_at', [second], 31 * DAY_MS);
      clock.advance(HOUR_MS);
      await eventually('the next pass', async () => (await eventsOf(t.db, tenant.tenantId)).length === 0);
    } finally {
      await app.close();
    }
  });

  test('with two instances on one database, one pass runs at a time', async () => {
    const tenant = await createTestTenant(t);
    const ids = await publishEvents(tenant.apiKey, 3);
    await age(t.db, 'events', 'created_at', ids, 31 * DAY_MS);
    // Two instances: on PostgreSQL each with its own connections; PGlite is one process with one database.
    const onServer = t.db.kind === 'postgres';
    const dbA = onServer ? await openDatabase(t.config) : t.db;
    const dbB = onServer ? await openDatabase(t.config) : t.db;
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked = () => {};
    const rowLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    try {
      // A transaction elsewhere holds one of the old rows, so instance A's pass waits mid-way.
      const holder = t.db.transaction(async (tx) => {
        await tx.query('select id from events where id = $1 for update', [ids[0]]);
        locked();
        await released;
      });
      await rowLocked;
      const passA = retentionFor([tenant.tenantId], { db: dbA }).pass();
      if (onServer) {
        await eventually('instance A to hold the retention lock', async () => {
          const { rows } = await t.db.query(
            `select 1 from pg_locks where locktype = 'advisory' and granted and objid::bigint = $1`,
            [RETENTION_LOCK],
          );
          return rows.length > 0;
        });
      }
      const passB = await retentionFor([tenant.tenantId], { db: dbB }).pass();
      assert.deepEqual(passB, { ran: false }, 'B skips its turn while A runs');
      // (On PGlite, one connection, the read would wait behind the transaction holding the row.)
      if (onServer) assert.equal((await eventsOf(t.db, tenant.tenantId)).length, 3, 'B deleted nothing');
      release();
      await holder;
      const resultA = await passA;
      assert.equal(resultA.ran, true);
      assert.deepEqual(await eventsOf(t.db, tenant.tenantId), []);
      const again = await retentionFor([tenant.tenantId], { db: dbB }).pass();
      assert.equal(again.ran, true, 'B runs once A is done');
    } finally {
      release();
      if (onServer) await Promise.all([dbA.close(), dbB.close()]);
    }
  });
});
