import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import pg from 'pg';
import { bearer } from '../../../../test/factories.ts';
import {
  buildTestApp,
  call,
  TEST_ENCRYPTION_KEY,
  type TestApp,
  testConfig,
} from '../../../../test/helper.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { ManualClock } from '../../../core/clock.ts';
import type { Database } from '../../../core/db/database.ts';
import { openDatabase } from '../../../runtime.ts';

/**
 * The run, with a real process: `svc start` is SIGKILLed while keyed payment creates are in
 * flight; the unanswered keys are retried on another instance (the app in this process, on the same
 * database, with a manual clock), and again after 310 s on that clock (past the key's 5-minute lease, so
 * no real waiting). Every key must end with exactly one payment. Which requests the kill catches between
 * their payment and their stored response is up to the kill; the deterministic cases are in
 * idempotency-crash.test.ts. Waits are bounded only to turn a hang into a failure.
 */

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const KEYS = 60;
const LANES = 12;
/** Answers before the kill: the rest of the lanes are in flight when it lands. */
const ANSWERED_BEFORE_KILL = 20;
const AFTER_310_S = 310_000;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-payments-crash-'));
const children = new Set<ChildProcess>();
const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const cleanup of cleanups.reverse()) await cleanup();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** A database of its own on the DATABASE_URL server (none for the embedded database). */
async function scratchDatabase(): Promise<string | undefined> {
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl === undefined || serverUrl === '') return undefined;
  const name = `svc_test_paycrash_${randomBytes(4).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  cleanups.push(() => admin(`drop database if exists ${name} with (force)`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; baseUrl: string }> {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/svc.mjs'), 'start'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, HOST: '127.0.0.1', PORT: '0', ...env },
  });
  children.add(child);
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const baseUrl = await eventually(
    () => `svc to listen:\n${output}`,
    () =>
      child.exitCode !== null
        ? Promise.reject(new Error(`svc exited:\n${output}`))
        : /svc listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1],
    { timeoutMs: 180_000, stepMs: 100 },
  );
  return { child, baseUrl };
}

const keyOf = (i: number) => `crash-order-${String(i).padStart(2, '0')}`;
const bodyOf = (i: number) => ({ amount: 1000 + i, currency: 'EUR', metadata: { order: keyOf(i) } });

test(`keyed payment creates through SIGKILL: one payment per key (${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded database'})`, {
  timeout: 600_000,
}, async (t) => {
  const databaseUrl = await scratchDatabase();
  const first = await startServer({
    SVC_ENV: 'development',
    SVC_DATA_DIR: dataDir,
    SVC_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    LOG_LEVEL: 'warn',
    ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
  });
  const { apiKey, tenantId } = JSON.parse(
    fs.readFileSync(path.join(dataDir, 'dev-credentials.json'), 'utf8'),
  ) as { apiKey: string; tenantId: string };

  // Keyed creates, LANES at a time, until the kill.
  const answered = new Map<string, string>();
  let next = 0;
  let killed = false;
  const lane = async () => {
    while (!killed && next < KEYS) {
      const i = next++;
      try {
        const res = await fetch(`${first.baseUrl}/v1/payments`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${apiKey}`,
            'content-type': 'application/json',
            'idempotency-key': keyOf(i),
          },
          body: JSON.stringify(bodyOf(i)),
          signal: AbortSignal.timeout(60_000),
        });
        const text = await res.text();
        assert.equal(res.status, 201, text);
        answered.set(keyOf(i), (JSON.parse(text) as { id: string }).id);
      } catch (error) {
        if (!killed) throw error;
      }
    }
  };
  const lanes = Promise.all(Array.from({ length: LANES }, lane));
  await Promise.race([
    lanes,
    eventually(`${ANSWERED_BEFORE_KILL} answers`, () => answered.size >= ANSWERED_BEFORE_KILL, {
      timeoutMs: 120_000,
      stepMs: 5,
    }),
  ]);
  const exited = new Promise((resolve) => first.child.once('exit', resolve));
  first.child.kill('SIGKILL');
  killed = true;
  await exited;
  await lanes;
  const unanswered = Array.from({ length: KEYS }, (_, i) => i).filter((i) => !answered.has(keyOf(i)));
  t.diagnostic(`answered before the kill: ${answered.size}; unanswered: ${unanswered.length}`);
  assert.ok(unanswered.length > 0, 'the kill left requests unanswered');

  // Another instance on the same data, its clock under the test's control.
  const clock = new ManualClock(Date.now());
  const config = { dataDir, databaseUrl };
  const db: Database = await openDatabase(testConfig(config));
  cleanups.push(() => db.close());
  const second: TestApp = await buildTestApp({ clock, db, config });
  cleanups.push(() => second.close());
  const create = (i: number) =>
    call(second.app, {
      method: 'POST',
      url: '/v1/payments',
      headers: { ...bearer(apiKey), 'idempotency-key': keyOf(i) },
      payload: bodyOf(i),
    });

  const running: number[] = [];
  for (const i of unanswered) {
    const res = await create(i);
    if (res.statusCode === 409) {
      assert.match(res.body, /Idempotency-Key is still running/);
      running.push(i);
    } else {
      assert.equal(res.statusCode, 201, res.body);
    }
  }
  t.diagnostic(`keys still held by the dead instance: ${running.length}`);
  clock.advance(AFTER_310_S);
  let found = 0;
  for (const i of running) {
    const res = await create(i);
    assert.equal(res.statusCode, 201, res.body);
    if (res.headers['idempotent-replayed'] === 'true') found += 1;
  }
  t.diagnostic(`after 310 s: ${found} of them found the payment the dead instance had made`);
  for (let i = 0; i < KEYS; i += 1) {
    const res = await create(i);
    assert.equal(res.statusCode, 201, res.body);
    const before = answered.get(keyOf(i));
    if (before !== undefined) assert.equal(res.json<{ id: string }>().id, before, keyOf(i));
  }

  const { rows } = await db.query<{ order: string; n: number | string }>(
    `select metadata->>'order' as order, count(*) as n from payments
      where tenant_id = $1 and metadata->>'order' like 'crash-order-%' group by 1 order by 1`,
    [tenantId],
  );
  const twice = rows.filter((r) => Number(r.n) !== 1).map((r) => `${r.order}: ${r.n}`);
  assert.deepEqual(twice, [], 'keys with more than one payment');
  assert.equal(rows.length, KEYS, 'every key made its payment');
});
