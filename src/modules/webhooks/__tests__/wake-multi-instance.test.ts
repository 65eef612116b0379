import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestTenant } from '../../../../test/factories.ts';
import { call, type TestApp, testConfig } from '../../../../test/helper.ts';
import { type Deployment, deployment } from '../../../../test/realtime-gateway/support.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { appMigrations, buildApp } from '../../../app.ts';
import type { Config } from '../../../config.ts';
import { type Clock, ManualClock, systemClock } from '../../../core/clock.ts';
import type { Database } from '../../../core/db/database.ts';
import { migrate } from '../../../core/db/migrations.ts';
import type { EventOrigin } from '../../../core/events/bus.ts';
import type { TenantEvent } from '../../../core/events/types.ts';
import { openDatabase } from '../../../runtime.ts';
import { DEAD_LETTERED_EVENT } from '../types.ts';
import { ok, type Receiver, startReceiver, status } from './support.ts';
import { type ScratchDatabase, scratchDatabase } from './system-support.ts';

/**
 * Two app instances on one database and one backplane (PostgreSQL + Redis when DATABASE_URL and REDIS_URL
 * are set; else one embedded database and an in-memory broker). Instance A runs no webhook worker. B's
 * worker runs on a clock that only the test moves, so it never polls by itself: a delivery queued on A
 * reaches its receiver only if A's commit wakes B's worker across instances.
 */

const SECRET = 'wake-test-secret-0001';
/** B's time: an hour ahead of the real clock, so deliveries A queues now are due there. */
const AHEAD_MS = 3_600_000;

let shared: Deployment;
let scratch: ScratchDatabase | undefined;
let a: TestApp;
let b: TestApp;
let bClock: ManualClock;
const databases: Database[] = [];

async function instance(config: Config, db: Database, clock: Clock, workers: boolean): Promise<TestApp> {
  const app = await buildApp({
    config,
    db,
    clock,
    workers,
    realtime: { backplane: await shared.backplane() },
  });
  await app.ready();
  return { app, db, config, close: () => app.close() };
}

before(async () => {
  shared = deployment();
  // On PostgreSQL a database of its own: B's worker would otherwise claim other test files' deliveries.
  scratch = await scratchDatabase('wake');
  const config = testConfig({
    webhookRetryScheduleMs: [1000],
    ...(scratch === undefined ? {} : { databaseUrl: scratch.url }),
  });
  const first = await openDatabase(config, { inMemory: true });
  databases.push(first);
  await migrate(first, appMigrations());
  // Each instance its own pool on PostgreSQL; the one in-process PGlite otherwise.
  const second = config.databaseUrl === undefined ? first : await openDatabase(config);
  if (second !== first) databases.push(second);
  bClock = new ManualClock(Date.now() + AHEAD_MS);
  a = await instance(config, first, systemClock, false);
  b = await instance(config, second, bClock, true);
});

after(async () => {
  await Promise.allSettled([a?.close(), b?.close()]);
  for (const db of databases) await db.close();
  await shared?.cleanup();
  await scratch?.drop();
});

async function endpointOnA(apiKey: string, receiver: Receiver): Promise<string> {
  const res = await call(a.app, {
    method: 'POST',
    url: '/v1/webhooks',
    headers: { 'x-api-key': apiKey },
    payload: { url: receiver.url, secret: SECRET, eventTypes: ['app.wake.*'] },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ id: string }>().id;
}

async function publish(on: TestApp, apiKey: string, n: number): Promise<string> {
  const res = await call(on.app, {
    method: 'POST',
    url: '/v1/events',
    headers: { 'x-api-key': apiKey },
    payload: { type: 'app.wake.happened', data: { n } },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ id: string }>().id;
}

describe(`webhook wake-ups across instances (${process.env.REDIS_URL ? 'Redis' : 'in-memory broker'})`, () => {
  test("a delivery queued on A is sent at once by B's worker, which never polls", async () => {
    const receiver = await startReceiver(ok);
    try {
      const tenant = await createTestTenant(a);
      await endpointOnA(tenant.apiKey, receiver);
      const eventIds: string[] = [];
      for (let n = 0; n < 3; n++) {
        eventIds.push(await publish(a, tenant.apiKey, n));
        const delivered = eventIds.length;
        await eventually(`B's worker to send delivery ${delivered}`, () =>
          receiver.received.length === delivered ? true : undefined,
        );
      }
      const sent = receiver.received.map((r) => r.json.id);
      assert.equal(new Set(sent).size, 3, 'each delivery once');
    } finally {
      await receiver.close();
    }
  });

  test("B's dead-lettering reaches A's bus subscribers at once", async () => {
    const heard: { event: TenantEvent; origin: EventOrigin }[] = [];
    const unsubscribe = a.app.services.events.bus.subscribe((event, origin) => {
      if (event.type === DEAD_LETTERED_EVENT) heard.push({ event, origin });
    });
    const receiver = await startReceiver(status(500));
    try {
      const tenant = await createTestTenant(a);
      const endpointId = await endpointOnA(tenant.apiKey, receiver);
      // Published on B, whose own worker is woken in-process: only the dead-lettering has to cross.
      const eventId = await publish(b, tenant.apiKey, 0);
      await eventually("B's first attempt", () => (receiver.received.length === 1 ? true : undefined));
      // The retry falls due on B's clock (1 s, jittered by up to 10 %): move it while waiting.
      const [dead] = await eventually(
        'A to hear the dead-lettering',
        () => (heard.length > 0 ? heard : undefined),
        { pause: (ms) => new Promise((resolve) => setTimeout(resolve, ms)).then(() => bClock.advance(500)) },
      );
      assert.equal(receiver.received.length, 2);
      assert.equal(dead?.origin, 'elsewhere', 'committed on B');
      assert.equal(dead?.event.tenantId, tenant.tenantId);
      assert.equal(dead?.event.data.endpointId, endpointId);
      assert.equal(dead?.event.data.eventId, eventId);
      assert.equal(dead?.event.data.attempts, 2);
      assert.equal(dead?.event.trace.origin, 'system');
    } finally {
      unsubscribe();
      await receiver.close();
    }
  });
});
