import assert from 'node:assert/strict';
import type http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { testConfig } from '../../../../test/helper.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { ManualClock } from '../../../core/clock.ts';
import type { Database } from '../../../core/db/database.ts';
import { openDatabase } from '../../../runtime.ts';
import { createEndpoint } from '../index.ts';
import { claimDueDeliveries } from '../worker/claim.ts';
import {
  attemptsOf,
  createTenant,
  ctxFor,
  deliveryRow,
  futureClock,
  manualClock,
  ms,
  openTestDb,
  publishEvent,
  type Reply,
  startReceiver,
  startWorker,
  waitForState,
  webhookConfig,
} from './support.ts';

const SECRET = 'receiver-secret-0001';

describe('webhook workers: leases, concurrency, shutdown', () => {
  let db: Database;
  /** A second handle on the same database: a second instance on PostgreSQL; the same handle on PGlite. */
  let db2: Database;
  before(async () => {
    db = await openTestDb();
    db2 = process.env.DATABASE_URL === undefined ? db : await openDatabase(testConfig());
  });
  after(async () => {
    if (db2 !== db) await db2.close();
    await db.close();
  });

  test('two workers deliver every delivery exactly once to healthy receivers', async () => {
    const receivers = await Promise.all(
      [0, 1, 2].map(() =>
        startReceiver((_req, res) => {
          setTimeout(() => res.writeHead(200).end('ok'), Math.floor(Math.random() * 4));
        }),
      ),
    );
    const tenantId = await createTenant(db);
    const ctx = ctxFor(db, tenantId, webhookConfig());
    for (const r of receivers) await createEndpoint(ctx, { url: r.url, secret: SECRET });
    const ids: string[] = [];
    for (let i = 0; i < 80; i++)
      ids.push(...(await publishEvent(db, tenantId, 'room.created', { i })).deliveryIds);
    assert.equal(ids.length, 240);

    const options = {
      clock: futureClock,
      tenantIds: [tenantId],
      maxConcurrency: 4,
      perEndpointConcurrency: 8,
    };
    const a = startWorker({ db, instanceId: 'worker-a', ...options });
    const b = startWorker({ db: db2, instanceId: 'worker-b', ...options });
    try {
      for (const id of ids) await waitForState(db, id, 'delivered', 60_000);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await Promise.all(receivers.map((r) => r.close()));
    }
    const seen = receivers.flatMap((r) => r.received.map((req) => String(req.headers['x-svc-delivery'])));
    assert.equal(seen.length, ids.length, 'one request per delivery');
    assert.deepEqual([...seen].sort(), [...ids].sort());
    for (const id of ids) assert.equal((await deliveryRow(db, id)).attempt_count, 1);
    const workers = new Set(
      (await Promise.all(ids.map((id) => attemptsOf(db, id)))).flat().map((a) => a.worker),
    );
    assert.deepEqual([...workers].sort(), ['worker-a', 'worker-b'], 'both workers took part');
  });

  test("a dead worker's lease expires and another worker delivers", async () => {
    const clock = manualClock();
    const receiver = await startReceiver();
    const tenantId = await createTenant(db);
    const config = webhookConfig();
    await createEndpoint(ctxFor(db, tenantId, config, clock), { url: receiver.url, secret: SECRET });
    const { deliveryIds } = await publishEvent(db, tenantId, 'room.created', {}, clock);
    const [id = ''] = deliveryIds;

    // What a crashed instance leaves behind: a claimed row nobody will ever finish.
    const leaseMs = 40_000;
    const crashed = await claimDueDeliveries(db, {
      owner: 'crashed-instance',
      now: clock.now(),
      leaseMs,
      limit: 10,
      perEndpoint: 8,
      tenantIds: [tenantId],
    });
    assert.deepEqual(
      crashed.map((c) => c.id),
      [id],
    );
    const worker = startWorker({ db: db2, clock, config, instanceId: 'survivor', tenantIds: [tenantId] });
    try {
      await worker.idle();
      assert.equal((await deliveryRow(db, id)).lease_owner, 'crashed-instance');
      assert.equal(receiver.received.length, 0, 'nobody sends while the lease holds');

      clock.advance(leaseMs);
      await worker.idle();
      await waitForState(db, id, 'delivered');
    } finally {
      await worker.stop({ graceMs: 0 });
      await receiver.close();
    }
    assert.equal(receiver.received.length, 1);
    const attempts = await attemptsOf(db, id);
    assert.deepEqual(
      attempts.map((a) => [a.attempt, a.error_class, a.status_code, a.worker]),
      [
        [1, 'interrupted', null, 'crashed-instance'],
        [2, null, 200, 'survivor'],
      ],
    );
    assert.equal(ms(attempts[1]?.started_at), ms(attempts[0]?.started_at) + leaseMs);
  });

  test("a crashed worker's deliveries are retaken the attempt timeout plus 5 s after their claim", async () => {
    const clock = manualClock();
    // The crashed instance's own time stands still: its attempt never times out, as if it had died.
    const frozen = new ManualClock(clock.now());
    const held: http.ServerResponse[] = [];
    const receiver = await startReceiver((_req, res) => {
      if (held.length === 0) held.push(res);
      else res.writeHead(200).end();
    });
    const tenantId = await createTenant(db);
    const config = webhookConfig({ webhookTimeoutMs: 10_000 });
    await createEndpoint(ctxFor(db, tenantId, config, clock), { url: receiver.url, secret: SECRET });
    const { deliveryIds } = await publishEvent(db, tenantId, 'room.created', {}, clock);
    const [id = ''] = deliveryIds;

    const crashed = startWorker({ db, clock: frozen, config, instanceId: 'crashed', tenantIds: [tenantId] });
    let survivor: ReturnType<typeof startWorker> | undefined;
    try {
      await eventually('the crashed worker to send', () => (held.length === 1 ? true : undefined));
      survivor = startWorker({ db: db2, clock, config, instanceId: 'survivor', tenantIds: [tenantId] });
      await survivor.idle();
      const claimed = await deliveryRow(db, id);
      assert.equal(claimed.lease_owner, 'crashed');
      assert.equal(
        ms(claimed.lease_expires_at) - ms(claimed.last_attempt_at),
        15_000,
        'the lease: 10 s + 5 s',
      );

      clock.advance(14_999);
      await survivor.idle();
      assert.equal(
        (await deliveryRow(db, id)).lease_owner,
        'crashed',
        'nobody takes it while the lease holds',
      );

      clock.advance(1);
      await survivor.idle();
      assert.equal((await deliveryRow(db, id)).state, 'delivered');
    } finally {
      await survivor?.stop({ graceMs: 0 });
      await crashed.stop({ graceMs: 0 });
      for (const res of held) res.destroy();
      await receiver.close();
    }
    const attempts = await attemptsOf(db, id);
    const retaken = attempts.find((a) => a.worker === 'survivor');
    assert.equal(retaken?.status_code, 200);
    assert.equal(ms(retaken?.started_at), ms(attempts[0]?.started_at) + 15_000);
  });

  test('stop() aborts attempts still in flight after the grace and releases them for others at once', async () => {
    const held: http.ServerResponse[] = [];
    const hold: Reply = (_req, res) => {
      held.push(res);
    };
    const receiver = await startReceiver(hold);
    const tenantId = await createTenant(db);
    const config = webhookConfig({ webhookTimeoutMs: 60_000 });
    await createEndpoint(ctxFor(db, tenantId, config), { url: receiver.url, secret: SECRET });
    const { deliveryIds } = await publishEvent(db, tenantId, 'room.created', {});
    const [id = ''] = deliveryIds;
    const first = startWorker({ db, clock: futureClock, config, instanceId: 'first', tenantIds: [tenantId] });
    await eventually('the request to arrive', () => (held.length === 1 ? true : undefined));
    await first.stop({ graceMs: 0 });
    const released = await deliveryRow(db, id);
    assert.equal(released.state, 'pending');
    assert.equal(released.lease_owner, null);
    assert.equal(released.cycle_attempt_count, 0, 'an interrupted attempt does not use up the schedule');

    receiver.reply = (_req, res) => {
      res.writeHead(200).end();
    };
    const second = startWorker({
      db,
      clock: futureClock,
      config,
      instanceId: 'second',
      tenantIds: [tenantId],
    });
    try {
      await waitForState(db, id, 'delivered');
    } finally {
      await second.stop();
      for (const res of held) res.destroy();
      await receiver.close();
    }
    const attempts = await attemptsOf(db, id);
    assert.deepEqual(
      attempts.map((a) => [a.error_class, a.worker]),
      [
        ['interrupted', 'first'],
        [null, 'second'],
      ],
    );
  });

  test('stop() lets an attempt in flight finish within the grace', async () => {
    const receiver = await startReceiver((_req, res) => {
      setTimeout(() => res.writeHead(200).end(), 50);
    });
    const tenantId = await createTenant(db);
    await createEndpoint(ctxFor(db, tenantId, webhookConfig()), { url: receiver.url, secret: SECRET });
    const { deliveryIds } = await publishEvent(db, tenantId, 'room.created', {});
    const [id = ''] = deliveryIds;
    const worker = startWorker({ db, clock: futureClock, tenantIds: [tenantId] });
    await eventually('the request to arrive', () => (receiver.received.length === 1 ? true : undefined));
    await worker.stop({ graceMs: 60_000 });
    await receiver.close();
    assert.equal((await deliveryRow(db, id)).state, 'delivered');
  });

  test('a slow endpoint holds at most its concurrency cap; other endpoints keep flowing', async () => {
    const held: http.ServerResponse[] = [];
    let open = 0;
    let peak = 0;
    const track = (res: http.ServerResponse) => {
      open += 1;
      peak = Math.max(peak, open);
      res.on('close', () => {
        open -= 1;
      });
    };
    const slow = await startReceiver((_req, res) => {
      track(res);
      held.push(res);
    });
    const fast = await startReceiver();
    const tenantId = await createTenant(db);
    const config = webhookConfig({ webhookTimeoutMs: 60_000 });
    const ctx = ctxFor(db, tenantId, config);
    await createEndpoint(ctx, { url: slow.url, secret: SECRET, eventTypes: ['slow.thing'] });
    await createEndpoint(ctx, { url: fast.url, secret: SECRET, eventTypes: ['fast.thing'] });
    const slowIds: string[] = [];
    for (let i = 0; i < 10; i++)
      slowIds.push(...(await publishEvent(db, tenantId, 'slow.thing', { i })).deliveryIds);
    const fastIds: string[] = [];
    for (let i = 0; i < 5; i++)
      fastIds.push(...(await publishEvent(db, tenantId, 'fast.thing', { i })).deliveryIds);

    const worker = startWorker({
      db,
      clock: futureClock,
      config,
      tenantIds: [tenantId],
      maxConcurrency: 8,
      perEndpointConcurrency: 2,
    });
    try {
      for (const id of fastIds) await waitForState(db, id, 'delivered');
      await eventually('two slow requests', () => (held.length === 2 ? true : undefined));
      // One more claim cycle: had the cap let a third slow request through, it would go out now too.
      const [extra = ''] = (await publishEvent(db, tenantId, 'fast.thing', { i: 99 })).deliveryIds;
      worker.wake();
      await waitForState(db, extra, 'delivered');
      assert.equal(held.length, 2, 'the slow endpoint is capped while the fast one was served');
      slow.reply = (_req, res) => {
        track(res);
        setTimeout(() => res.writeHead(200).end(), 5);
      };
      for (const res of held.splice(0)) res.writeHead(200).end();
      for (const id of slowIds) await waitForState(db, id, 'delivered');
    } finally {
      await worker.stop({ graceMs: 0 });
      await slow.close();
      await fast.close();
    }
    assert.ok(peak <= 2, `at most 2 concurrent requests to the slow endpoint, saw ${peak}`);
  });
});
