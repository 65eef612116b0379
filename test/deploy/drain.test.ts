import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.ts';
import { systemTx } from '../../src/core/db/tenant-tx.ts';
import { startReceiver } from '../../src/modules/webhooks/__tests__/support.ts';
import { openDatabase } from '../../src/runtime.ts';
import { batchDelays, closeInBatches, type DrainedSocket } from '../../src/surfaces/realtime/drain.ts';
import { CLOSE } from '../../src/surfaces/realtime/index.ts';
import { createTestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp, testConfig } from '../helper.ts';
import { TestClient } from '../realtime-gateway/client.ts';
import { sessionToken, tenantWithRoom } from '../realtime-gateway/fixtures.ts';
import { startInstance } from '../realtime-gateway/support.ts';
import { eventually } from '../support/eventually.ts';

/**
 * The drain SIGTERM begins (svc start calls `app.drain.begin()`, then closes the app): readiness, the
 * sockets' batches and refusals, the workers' leases. The real process and HAProxy: test/deploy's
 * rolling-restart.deploy.ts (`npm run test:deploy`).
 */

class FakeSocket implements DrainedSocket {
  closedWith: { code: number; at: number } | undefined;
  constructor(private readonly clock: ManualClock) {}
  get isOpen(): boolean {
    return this.closedWith === undefined;
  }
  close(code: number): void {
    this.closedWith = { code, at: this.clock.now() };
  }
}

describe('closing in batches', () => {
  test('each batch falls in its own slot of the window, every socket closed with 1012 within it', async () => {
    const clock = new ManualClock(0);
    const sockets = Array.from({ length: 200 }, () => new FakeSocket(clock));
    const randoms = [0, 0.999, 0.5];
    let n = 0;
    const done = closeInBatches(sockets, {
      clock,
      windowMs: 10_000,
      random: () => randoms[n++ % randoms.length] ?? 0,
    });
    clock.advance(10_000);
    await done;
    const times = sockets.map((s) => s.closedWith?.at);
    assert.ok(times.every((t) => t !== undefined && t >= 0 && t < 10_000));
    assert.ok(sockets.every((s) => s.closedWith?.code === CLOSE.restart));
    // 100 batches of 2 (batches are at least 100 ms apart), batch i inside [i * 100, (i + 1) * 100).
    const distinct = [...new Set(times)];
    assert.equal(distinct.length, 100);
    for (const [i, socket] of sockets.entries()) {
      const slot = Math.floor(i / 2);
      const at = socket.closedWith?.at ?? -1;
      assert.ok(at >= slot * 100 && at < (slot + 1) * 100, `socket ${i} closed at ${at}`);
    }
    // The jitter moves batches inside their slots (not all at a slot's start).
    assert.deepEqual(
      batchDelays(3, 300, () => 0.5),
      [50, 150, 250],
    );
  });

  test('fewer sockets than slots: one batch each; a window of 0 closes them all at once', async () => {
    const clock = new ManualClock(0);
    const few = Array.from({ length: 4 }, () => new FakeSocket(clock));
    const done = closeInBatches(few, { clock, windowMs: 1000, random: () => 0 });
    clock.advance(999);
    await done;
    assert.deepEqual(
      few.map((s) => s.closedWith?.at),
      [0, 250, 500, 750],
    );
    const now = Array.from({ length: 3 }, () => new FakeSocket(clock));
    await closeInBatches(now, { clock, windowMs: 0 });
    assert.ok(now.every((s) => s.closedWith?.code === CLOSE.restart));
  });
});

describe('the drain of an instance, with real sockets', () => {
  test('readiness 503 at once, new joins refused with 1012, open sockets closed in batches over the window', async () => {
    const clock = new ManualClock(Date.now());
    const instance = await startInstance({ clock, config: { drainWindowMs: 1000 } });
    try {
      const ready = await call(instance.app, { method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 200, ready.body);
      const tenant = await tenantWithRoom(instance);
      const clients: TestClient[] = [];
      for (let i = 0; i < 6; i += 1) {
        const client = await TestClient.connect(
          instance.wsUrl,
          await sessionToken(instance, tenant.apiKey, { actorId: `test:drained-${i}` }),
        );
        await client.join(tenant.roomId);
        clients.push(client);
      }
      const token = await sessionToken(instance, tenant.apiKey, { actorId: 'test:late' });

      const drained = instance.app.drain.begin();
      // Nothing awaited in between: the flag is set by begin() itself.
      const draining = await call(instance.app, { method: 'GET', url: '/readyz' });
      assert.equal(draining.statusCode, 503, draining.body);
      assert.match(draining.json<{ message: string }>().message, /draining/);

      const late = await TestClient.connect(instance.wsUrl, token);
      assert.equal((await late.closed()).code, CLOSE.restart);

      // 6 sockets over 1000 ms: batch i falls in [i * 166, (i + 1) * 166); by 499 ms the first three.
      clock.advance(499);
      const firstThree = await Promise.all(clients.slice(0, 3).map((c) => c.closed()));
      assert.deepEqual(
        firstThree.map((c) => c.code),
        [CLOSE.restart, CLOSE.restart, CLOSE.restart],
      );
      assert.deepEqual(
        clients.map((c) => c.closedWith === undefined),
        [false, false, false, true, true, true],
      );
      clock.advance(501);
      await drained;
      const all = await Promise.all(clients.map((c) => c.closed()));
      assert.ok(all.every((c) => c.code === CLOSE.restart));
    } finally {
      await instance.close();
    }
  });
});

describe('workers hand their leases back when the drain begins', () => {
  const apps: TestApp[] = [];
  const dbs: { close(): Promise<void> }[] = [];
  after(async () => {
    await Promise.all(apps.map((t) => t.close()));
    await Promise.all(dbs.map((db) => db.close()));
  });

  test('a webhook delivery held by a draining instance is released at once and taken by another', async () => {
    // Both instances on one embedded database (each with its own worker); attempts time out after 60 s,
    // so a lease held until expiry would take more than a minute to pass to the other instance.
    const config = {
      ...testConfig({ webhookTimeoutMs: 60_000, drainWindowMs: 200 }),
      databaseUrl: undefined,
    };
    const db = await openDatabase(config, { inMemory: true });
    dbs.push(db);
    let first = true;
    const receiver = await startReceiver((_entry, res) => {
      if (first) {
        first = false; // the first attempt hangs: its instance drains meanwhile
        return;
      }
      res.writeHead(200).end('ok');
    });
    try {
      const a = await buildTestApp({ db, webhookWorker: true, config });
      apps.push(a);
      const tenant = await createTestTenant(a);
      const headers = { 'x-api-key': tenant.apiKey };
      const endpoint = await call(a.app, {
        method: 'POST',
        url: '/v1/webhooks',
        headers,
        payload: { url: receiver.url, secret: 'drain-lease-secret-01', eventTypes: null },
      });
      assert.equal(endpoint.statusCode, 201, endpoint.body);
      const event = await call(a.app, {
        method: 'POST',
        url: '/v1/events',
        headers,
        payload: { type: 'app.drain.happened', data: {} },
      });
      assert.equal(event.statusCode, 201, event.body);
      await eventually(
        () => 'the first attempt to reach the receiver',
        async () => (receiver.received.length === 1 ? true : undefined),
      );
      const leased = await leaseOf(a);
      assert.ok(leased.owner !== null && leased.expiresAt !== null);
      const leaseExpiresAt = Date.parse(leased.expiresAt);

      await a.app.drain.begin();
      // Released by the drain itself: no owner left, nothing to wait for.
      assert.deepEqual(await leaseOf(a), { owner: null, expiresAt: null, state: 'pending' });

      const b = await buildTestApp({ db, webhookWorker: true, config });
      apps.push(b);
      await eventually(
        () => 'the other instance to deliver it',
        async () => ((await leaseOf(b)).state === 'delivered' ? true : undefined),
      );
      assert.equal(receiver.received.length, 2);
      assert.ok(Date.now() < leaseExpiresAt, 'taken over before the first lease would have expired');
    } finally {
      await receiver.close();
    }
  });
});

async function leaseOf(
  t: TestApp,
): Promise<{ owner: string | null; expiresAt: string | null; state: string }> {
  return systemTx(t.db, async (tx) => {
    const { rows } = await tx.query<{ owner: string | null; expires_at: Date | null; state: string }>(
      'select lease_owner as owner, lease_expires_at as expires_at, state from webhook_deliveries',
    );
    const [row] = rows;
    assert.equal(rows.length, 1);
    assert.ok(row !== undefined);
    return {
      owner: row.owner,
      expiresAt: row.expires_at === null ? null : new Date(row.expires_at).toISOString(),
      state: row.state,
    };
  });
}
