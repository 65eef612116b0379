import assert from 'node:assert/strict';
import type http from 'node:http';
import { describe, test } from 'node:test';
import { testConfig } from '../../../../test/helper.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { suiteFixture } from '../../../../test/support/suite.ts';
import { ManualClock } from '../../../core/clock.ts';
import { openDatabase } from '../../../runtime.ts';
import { createEndpoint } from '../index.ts';
import { claimDueDeliveries } from '../worker/claim.ts';
import { SECRET, webhookSuite } from './suite.ts';
import { futureClock, manualClock, ms, startReceiver, startWorker, webhookConfig } from './support.ts';

describe('webhook workers: leases, concurrency, shutdown', () => {
  const s = webhookSuite();
  /** A second handle on the same database: a second instance on PostgreSQL; the same handle on PGlite. */
  const ownHandle = suiteFixture(
    'second database handle',
    async () => (process.env.DATABASE_URL === undefined ? undefined : await openDatabase(testConfig())),
    (db2) => db2?.close(),
  );
  const secondHandle = () => ownHandle() ?? s.db;

  test('two workers deliver every delivery exactly once to healthy receivers', async () => {
    const receivers = await Promise.all(
      [0, 1, 2].map(() =>
        startReceiver((_req, res) => {
          setTimeout(() => res.writeHead(200).end('ok'), Math.floor(Math.random() * 4));
        }),
      ),
    );
    const { tenantId, ctx } = await s.tenant();
    for (const r of receivers) await createEndpoint(ctx, { url: r.url, secret: SECRET });
    const ids: string[] = [];
    for (let i = 0; i < 80; i++) ids.push(...(await s.publish(tenantId, 'room.created', { i })).deliveryIds);
    assert.equal(ids.length, 240);

    const options = {
      clock: futureClock,
      tenantIds: [tenantId],
      maxConcurrency: 4,
      perEndpointConcurrency: 8,
    };
    const a = s.worker({ instanceId: 'worker-a', ...options });
    const b = startWorker({ db: secondHandle(), instanceId: 'worker-b', ...options });
    try {
      for (const id of ids) await s.waitFor(id, 'delivered', 60_000);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await Promise.all(receivers.map((r) => r.close()));
    }
    const seen = receivers.flatMap((r) => r.received.map((req) => String(req.headers['x-svc-delivery'])));
    assert.equal(seen.length, ids.length, 'one request per delivery');
    assert.deepEqual([...seen].sort(), [...ids].sort());
    for (const id of ids) assert.equal((await s.row(id)).attempt_count, 1);
    const workers = new Set((await Promise.all(ids.map((id) => s.attempts(id)))).flat().map((a) => a.worker));
    assert.deepEqual([...workers].sort(), ['worker-a', 'worker-b'], 'both workers took part');
  });

  test("a dead worker's lease expires and another worker delivers", async () => {
    const clock = manualClock();
    const receiver = await startReceiver();
    const config = webhookConfig();
    const { tenantId, id } = await s.delivery(receiver.url, config, clock);

    // What a crashed instance leaves behind: a claimed row nobody will ever finish.
    const leaseMs = 40_000;
    const crashed = await claimDueDeliveries(s.db, {
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
    const worker = startWorker({
      db: secondHandle(),
      clock,
      config,
      instanceId: 'survivor',
      tenantIds: [tenantId],
    });
    try {
      await worker.idle();
      assert.equal((await s.row(id)).lease_owner, 'crashed-instance');
      assert.equal(receiver.received.length, 0, 'nobody sends while the lease holds');

      clock.advance(leaseMs);
      await worker.idle();
      await s.waitFor(id, 'delivered');
    } finally {
      await worker.stop({ graceMs: 0 });
      await receiver.close();
    }
    assert.equal(receiver.received.length, 1);
    const attempts = await s.attempts(id);
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
    const config = webhookConfig({ webhookTimeoutMs: 10_000 });
    const { tenantId, id } = await s.delivery(receiver.url, config, clock);

    const crashed = s.worker({
      clock: frozen,
      config,
      instanceId: 'crashed',
      tenantIds: [tenantId],
    });
    let survivor: ReturnType<typeof startWorker> | undefined;
    try {
      await eventually('the crashed worker to send', () => (held.length === 1 ? true : undefined));
      survivor = startWorker({
        db: secondHandle(),
        clock,
        config,
        instanceId: 'survivor',
        tenantIds: [tenantId],
      });
      await survivor.idle();
      const claimed = await s.row(id);
      assert.equal(claimed.lease_owner, 'crashed');
      assert.equal(
        ms(claimed.lease_expires_at) - ms(claimed.last_attempt_at),
        15_000,
        'the lease: 10 s + 5 s',
      );

      clock.advance(14_999);
      await survivor.idle();
      assert.equal((await s.row(id)).lease_owner, 'crashed', 'nobody takes it while the lease holds');

      clock.advance(1);
      await survivor.idle();
      assert.equal((await s.row(id)).state, 'delivered');
    } finally {
      await survivor?.stop({ graceMs: 0 });
      await crashed.stop({ graceMs: 0 });
      for (const res of held) res.destroy();
      await receiver.close();
    }
    const attempts = await s.attempts(id);
    const retaken = attempts.find((a) => a.worker === 'survivor');
    assert.equal(retaken?.status_code, 200);
    assert.equal(ms(retaken?.started_at), ms(attempts[0]?.started_at) + 15_000);
  });
});
