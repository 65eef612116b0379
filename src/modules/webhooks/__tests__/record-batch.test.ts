import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database, Queryable } from '../../../core/db/database.ts';
import { systemTx } from '../../../core/db/tenant-tx.ts';
import { createEndpoint, type EmitTenantEvent } from '../index.ts';
import { type ClaimedDelivery, claimDueDeliveries } from '../worker/claim.ts';
import { type RecordResult, recordOutcome } from '../worker/record.ts';
import { type FinishedAttempt, recordOutcomes } from '../worker/record-batch.ts';
import type { AttemptOutcome } from '../worker/send.ts';
import { webhookSuite } from './suite.ts';
import { createTenant, ctxFor, futureClock, publishEvent, webhookConfig } from './support.ts';

/**
 * The worker records finished attempts in batches (`recordOutcomes`). Every kind of outcome in one batch
 * must leave the rows, attempts and dead-letter events exactly as recording them one by one
 * (`recordOutcome`) does: the same scenario is played both ways on twin deliveries and compared.
 */

const SCHEDULE = [100, 200];
const OWNER = 'batch-test-worker';

const ok = (durationMs = 3): AttemptOutcome => ({
  statusCode: 200,
  errorClass: null,
  errorMessage: null,
  responseBodyExcerpt: 'ok',
  durationMs,
});
const http500: AttemptOutcome = {
  statusCode: 500,
  errorClass: 'http',
  errorMessage: 'HTTP 500',
  responseBodyExcerpt: 'boom',
  durationMs: 4,
};
const interrupted: AttemptOutcome = {
  statusCode: null,
  errorClass: 'interrupted',
  errorMessage: 'worker stopping',
  responseBodyExcerpt: null,
  durationMs: 5,
};

interface Scenario {
  name: string;
  /** Run before recording, on the claimed row (e.g. make its lease another worker's). */
  prepare?: (tx: Queryable, id: string) => Promise<unknown>;
  outcome: AttemptOutcome;
  expected: RecordResult;
}

const SCENARIOS: Scenario[] = [
  { name: '2xx', outcome: ok(), expected: 'delivered' },
  { name: 'first failure', outcome: http500, expected: 'retry' },
  { name: 'interrupted', outcome: interrupted, expected: 'released' },
  {
    name: 'final failure',
    prepare: (tx, id) =>
      tx.query('update webhook_deliveries set cycle_attempt_count = $2 where id = $1', [id, SCHEDULE.length]),
    outcome: http500,
    expected: 'dead_lettered',
  },
  {
    name: 'failure after losing the lease',
    prepare: (tx, id) =>
      tx.query(`update webhook_deliveries set lease_token = 'someone-else' where id = $1`, [id]),
    outcome: http500,
    expected: 'recorded_only',
  },
  {
    name: 'late 2xx after losing the lease',
    prepare: (tx, id) =>
      tx.query(`update webhook_deliveries set lease_token = 'someone-else' where id = $1`, [id]),
    outcome: ok(7),
    expected: 'delivered',
  },
  {
    name: '2xx after it was delivered already',
    prepare: (tx, id) =>
      tx.query(
        `update webhook_deliveries set state = 'delivered', next_attempt_at = null, delivered_at = now(),
                lease_owner = null, lease_token = null, lease_expires_at = null where id = $1`,
        [id],
      ),
    outcome: ok(8),
    expected: 'recorded_only',
  },
];

/** Claims one delivery per scenario (one event, one endpoint per scenario). */
async function claimScenarios(db: Database, now: number): Promise<ClaimedDelivery[]> {
  const tenantId = await createTenant(db);
  const ctx = ctxFor(db, tenantId, webhookConfig());
  for (let i = 0; i < SCENARIOS.length; i++)
    await createEndpoint(ctx, { url: 'http://127.0.0.1:9/hook', secret: 'batch-secret-0001' });
  await publishEvent(db, tenantId, 'app.batch.happened', {});
  const claimed = await claimDueDeliveries(db, {
    owner: OWNER,
    now,
    leaseMs: 60_000,
    limit: 100,
    perEndpoint: 1,
    tenantIds: [tenantId],
  });
  assert.equal(claimed.length, SCENARIOS.length);
  const sorted = [...claimed].sort((a, b) => (a.endpointId < b.endpointId ? -1 : 1));
  await systemTx(db, async (tx) => {
    for (const [i, s] of SCENARIOS.entries()) {
      const delivery = sorted[i];
      if (delivery !== undefined) await s.prepare?.(tx, delivery.id);
    }
  });
  return sorted;
}

/** What recording leaves behind, without ids (they differ between the twins). */
async function snapshot(db: Database, claimed: ClaimedDelivery[]) {
  return systemTx(db, async (tx) => {
    const rows = [];
    for (const d of claimed) {
      const { rows: delivery } = await tx.query(
        // next_attempt_at left as queued (= created_at, which differs between the twins) reads 'as queued'.
        `select state, attempt_count, cycle_attempt_count,
                case when next_attempt_at = created_at then 'as queued' else next_attempt_at::text end as next_attempt_at,
                last_status_code, last_error_class,
                delivered_at is not null as has_delivered_at, dead_lettered_at, lease_owner, lease_token is null as no_token,
                lease_expires_at
           from webhook_deliveries where id = $1`,
        [d.id],
      );
      const { rows: attempts } = await tx.query(
        `select attempt, cycle, started_at, duration_ms, status_code, error_class, error_message,
                response_body_excerpt, worker
           from webhook_attempts where delivery_id = $1 order by attempt`,
        [d.id],
      );
      rows.push({ delivery, attempts });
    }
    return rows;
  });
}

describe('recording attempts in a batch', () => {
  const suite = webhookSuite();

  test('every kind of outcome in one batch ends as recording them one by one does', async () => {
    // After every event these twins publish (they are due at publication), the same for both twins.
    const now = futureClock.now() + 60_000;
    const finishedAt = now + 50;
    const emitted: { mode: string; data: Record<string, unknown> }[] = [];
    const emitFor =
      (mode: string): EmitTenantEvent =>
      async (_tx, _tenantId, type, data) => {
        assert.equal(type, 'webhook.delivery.dead_lettered');
        const { deliveryId: _d, endpointId: _e, eventId: _v, ...rest } = data;
        emitted.push({ mode, data: rest });
        return () => {};
      };
    const options = (mode: string) => ({
      owner: OWNER,
      schedule: SCHEDULE,
      random: () => 0.5,
      emit: emitFor(mode),
    });

    const single = await claimScenarios(suite.db, now);
    const singleResults: RecordResult[] = [];
    for (const [i, s] of SCENARIOS.entries()) {
      const claimed = single[i];
      assert.ok(claimed !== undefined);
      singleResults.push(
        await recordOutcome(suite.db, claimed, s.outcome, { ...options('single'), now: finishedAt }),
      );
    }

    const batched = await claimScenarios(suite.db, now);
    const finished: FinishedAttempt[] = SCENARIOS.map((s, i) => {
      const claimed = batched[i];
      assert.ok(claimed !== undefined);
      return { claimed, outcome: s.outcome, now: finishedAt };
    });
    const batchResults = await recordOutcomes(suite.db, finished, options('batch'));

    assert.deepEqual(
      singleResults,
      SCENARIOS.map((s) => s.expected),
      'one by one: the expected transitions',
    );
    assert.deepEqual(batchResults, singleResults, 'batched: the same transitions');
    const [one, many] = [await snapshot(suite.db, single), await snapshot(suite.db, batched)];
    for (const [i, s] of SCENARIOS.entries()) {
      assert.deepEqual(many[i], one[i], `${s.name}: rows and attempts as recorded one by one`);
    }
    assert.deepEqual(
      emitted.filter((e) => e.mode === 'batch').map((e) => e.data),
      emitted.filter((e) => e.mode === 'single').map((e) => e.data),
    );
    assert.equal(emitted.filter((e) => e.mode === 'batch').length, 1);
  });

  test('an empty batch writes nothing', async () => {
    assert.deepEqual(
      await recordOutcomes(suite.db, [], {
        owner: OWNER,
        schedule: SCHEDULE,
        random: () => 0,
        emit: undefined,
      }),
      [],
    );
  });
});
