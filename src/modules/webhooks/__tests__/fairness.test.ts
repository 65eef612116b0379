import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventually } from '../../../../test/support/eventually.ts';
import type { Database } from '../../../core/db/database.ts';
import { systemTx } from '../../../core/db/tenant-tx.ts';
import { createEndpoint, getEndpoint } from '../index.ts';
import { SECRET, suiteReceiver, webhookSuite } from './suite.ts';
import { createTenant, ctxFor, manualClock, ok, type Reply, webhookConfig } from './support.ts';

/** Accepts the request and never answers. */
const hang: Reply = () => {};

async function leasesByEndpoint(db: Database, tenantId: string): Promise<number[]> {
  const { rows } = await systemTx(db, (tx) =>
    tx.query<{ n: number }>(
      `select count(*)::int as n from webhook_deliveries
        where tenant_id = $1 and lease_owner is not null group by endpoint_id`,
      [tenantId],
    ),
  );
  return rows.map((r) => r.n);
}

async function attemptCount(db: Database, tenantId: string): Promise<number> {
  const { rows } = await systemTx(db, (tx) =>
    tx.query<{ n: number }>('select count(*)::int as n from webhook_attempts where tenant_id = $1', [
      tenantId,
    ]),
  );
  return rows[0]?.n ?? 0;
}

async function circuitOf(db: Database, endpointId: string) {
  const { rows } = await systemTx(db, (tx) =>
    tx.query<{ consecutive_timeouts: number; circuit_trips: number; circuit_open_until: Date | null }>(
      `select consecutive_timeouts, circuit_trips, circuit_open_until from webhook_endpoints where id = $1`,
      [endpointId],
    ),
  );
  const row = rows[0];
  if (row === undefined) throw new Error(`no endpoint ${endpointId}`);
  return {
    timeouts: row.consecutive_timeouts,
    trips: row.circuit_trips,
    openUntil: row.circuit_open_until === null ? null : new Date(row.circuit_open_until).getTime(),
  };
}

/**
 * Issue 28 item 7: one tenant's receivers that accept and never answer must not stall other tenants.
 * Time is a manual clock, so an attempt times out only when the test says so: while tenant A's requests
 * hang, tenant B's deliveries must all be delivered, whatever the machine's speed.
 */
describe('webhook fairness between tenants and endpoints', () => {
  const s = webhookSuite();
  const hanging = suiteReceiver(hang);
  const healthy = suiteReceiver(ok);

  test("tenant B's deliveries all go while tenant A's ten endpoints hang, A held to its cap", async () => {
    const clock = manualClock();
    const config = webhookConfig({ webhookTimeoutMs: 1000 });
    const tenantA = await createTenant(s.db);
    const tenantB = await createTenant(s.db);
    const ctxA = ctxFor(s.db, tenantA, config, clock);
    const ctxB = ctxFor(s.db, tenantB, config, clock);
    for (let i = 0; i < 10; i++) {
      await createEndpoint(ctxA, { url: `${hanging().url}/a${i}`, secret: SECRET });
    }
    for (let i = 0; i < 2; i++) {
      await createEndpoint(ctxB, { url: `${healthy().url}/b${i}`, secret: SECRET });
    }
    // A's 200 deliveries are due before B's 20: a claim in due order alone gives A every slot.
    const idsA: string[] = [];
    for (let i = 0; i < 20; i++) idsA.push(...(await s.publish(tenantA, 'room.created', { i })).deliveryIds);
    const idsB: string[] = [];
    for (let i = 0; i < 10; i++) idsB.push(...(await s.publish(tenantB, 'room.created', { i })).deliveryIds);
    assert.equal(idsA.length, 200);
    assert.equal(idsB.length, 20);

    const worker = s.worker({
      clock,
      config,
      tenantIds: [tenantA, tenantB],
      maxConcurrency: 64,
      perEndpointConcurrency: 8,
      perTenantConcurrency: 16,
    });
    try {
      await eventually('every delivery of tenant B to be delivered', async () => {
        for (const id of idsB) if ((await s.row(id)).state !== 'delivered') return undefined;
        return true;
      });
      await eventually('tenant A to fill its share', () => hanging().received.length === 16 || undefined);
      // No attempt of A ended (the clock never moved): its requests hung the whole time B was served.
      assert.equal(await attemptCount(s.db, tenantA), 0);
      assert.equal(await attemptCount(s.db, tenantB), 20);
      const leases = await leasesByEndpoint(s.db, tenantA);
      assert.equal(
        leases.reduce((a, b) => a + b, 0),
        16,
        'tenant A holds its 16 leases, no more',
      );
      // Within the tenant its endpoints share the 16 in turn: 10 endpoints, at most 2 each.
      assert.ok(Math.max(...leases) <= 2, `leases per endpoint ${JSON.stringify(leases)}`);
      assert.equal(healthy().received.length, 20);
      assert.equal(hanging().received.length, 16);
    } finally {
      await worker.stop({ graceMs: 0 });
    }
  });

  test('an endpoint that keeps timing out is backed off, then probed, and its deliveries wait uncharged', async () => {
    const clock = manualClock();
    const config = webhookConfig({
      webhookTimeoutMs: 1000,
      webhookRetryScheduleMs: [20, 40, 60],
      webhookCircuitTimeouts: 3,
      webhookCircuitOpenMs: 60_000,
    });
    hanging().received.length = 0;
    hanging().reply = hang;
    const tenantId = await createTenant(s.db);
    const endpoint = await createEndpoint(ctxFor(s.db, tenantId, config, clock), {
      url: `${hanging().url}/c`,
      secret: SECRET,
    });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(...(await s.publish(tenantId, 'room.created', { i })).deliveryIds);
    const worker = s.worker({ clock, config, tenantIds: [tenantId], perEndpointConcurrency: 3 });
    try {
      await eventually('three requests in flight', () => hanging().received.length === 3 || undefined);
      // The three time out: the circuit opens for 60 s.
      const opened = clock.now();
      clock.advance(1000);
      await eventually('the circuit to open', async () => {
        const c = await circuitOf(s.db, endpoint.id);
        return c.openUntil !== null ? c : undefined;
      });
      // Until the third timeout was recorded, the endpoint's free slots were refilled: at most 3 more.
      const tried = hanging().received.length;
      assert.ok(tried >= 3 && tried <= 6, `${tried} requests before the circuit opened`);
      assert.deepEqual(await circuitOf(s.db, endpoint.id), {
        timeouts: 3,
        trips: 1,
        openUntil: opened + 1000 + 60_000,
      });
      const view = await getEndpoint(ctxFor(s.db, tenantId, config, clock), { id: endpoint.id });
      assert.deepEqual(view.circuit, {
        consecutiveTimeouts: 3,
        openedAt: new Date(opened + 1000).toISOString(),
        openUntil: new Date(opened + 1000 + 60_000).toISOString(),
      });
      // Open: retries fall due and the untried deliveries are due, but nothing is sent. The stragglers time
      // out and count, without opening it again.
      clock.advance(30_000);
      worker.wake();
      await worker.idle();
      assert.equal(hanging().received.length, tried);
      const rows = await Promise.all(ids.map((id) => s.row(id)));
      assert.deepEqual(
        rows.map((r) => r.state),
        ids.map(() => 'pending'),
      );
      // Waiting for the circuit charges nothing: the untried ones have no attempt.
      assert.equal(rows.filter((r) => r.attempt_count === 0).length, 12 - tried);
      assert.equal(await attemptCount(s.db, tenantId), tried);
      assert.deepEqual(await circuitOf(s.db, endpoint.id), {
        timeouts: tried,
        trips: 1,
        openUntil: opened + 1000 + 60_000,
      });

      // Half-open: one probe at a time. It times out too: open again, twice as long.
      clock.advance(31_000);
      await eventually('one probe', () => hanging().received.length === tried + 1 || undefined);
      worker.wake();
      const probed = clock.now();
      clock.advance(1000);
      await eventually('the circuit to open again', async () => {
        const c = await circuitOf(s.db, endpoint.id);
        return c.trips === 2 ? c : undefined;
      });
      // One probe only: one more timeout.
      assert.equal(hanging().received.length, tried + 1);
      assert.deepEqual(await circuitOf(s.db, endpoint.id), {
        timeouts: tried + 1,
        trips: 2,
        openUntil: probed + 1000 + 120_000,
      });

      // The receiver comes back: the next probe's answer closes the circuit and everything goes.
      hanging().reply = ok;
      clock.advance(120_000);
      for (const id of ids) {
        await eventually(`${id} to be delivered`, async () => {
          const row = await s.row(id);
          return row.state === 'delivered' || undefined;
        });
      }
      assert.deepEqual(await circuitOf(s.db, endpoint.id), { timeouts: 0, trips: 0, openUntil: null });
      // Deliveries that reached the endpoint neither before the circuit opened nor as the failed probe
      // have one attempt: the 200.
      const neverTried = [];
      for (const id of ids) {
        const attempts = await s.attempts(id);
        if (attempts.every((a) => a.error_class === null)) neverTried.push(attempts.length);
      }
      assert.deepEqual(
        neverTried,
        ids.slice(tried + 1).map(() => 1),
      );
    } finally {
      await worker.stop({ graceMs: 0 });
    }
  });
});
