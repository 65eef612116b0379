import type { Database, Queryable } from '../../../core/db/database.ts';
import { systemTx, TENANT_ROLE } from '../../../core/db/tenant-tx.ts';
import type { DeliveryState } from '../schema.ts';
import { type AfterCommit, DEAD_LETTERED_EVENT, type EmitTenantEvent } from '../types.ts';
import { type CircuitOptions, type OpenedCircuit, recordCircuits } from './circuit.ts';
import type { ClaimedDelivery } from './claim.ts';
import { retryDelay } from './schedule.ts';
import type { AttemptOutcome } from './send.ts';

export interface RecordOptions {
  owner: string;
  now: number;
  schedule: readonly number[];
  random: () => number;
  emit: EmitTenantEvent | undefined;
  /** The endpoints' circuit breakers (circuit.ts); undefined = outcomes do not touch them. */
  circuit?: CircuitOptions | undefined;
  /** Told, after commit, of the circuits the recorded outcomes opened. */
  circuitOpened?: ((opened: OpenedCircuit[]) => void) | undefined;
}

interface LockedRow {
  state: DeliveryState;
  lease_token: string | null;
  attempt_count: number;
  cycle_attempt_count: number;
}

export type RecordResult = 'delivered' | 'retry' | 'dead_lettered' | 'released' | 'recorded_only' | 'gone';

/**
 * Writes the attempt and moves the delivery on, in one transaction. Only the lease holder moves a
 * failed delivery on; a success counts whoever reports it. Dead-lettering emits the tenant event in the
 * same transaction, scoped to the tenant, and publishes it once that transaction has committed.
 */
export async function recordOutcome(
  db: Database,
  claimed: ClaimedDelivery,
  outcome: AttemptOutcome,
  options: RecordOptions,
): Promise<RecordResult> {
  const now = new Date(options.now).toISOString();
  const committed: AfterCommit[] = [];
  const opened: OpenedCircuit[] = [];
  const result = await systemTx(db, async (tx): Promise<RecordResult> => {
    const { rows } = await tx.query<LockedRow>(
      `select state, lease_token, attempt_count, cycle_attempt_count from webhook_deliveries
        where tenant_id = $1 and id = $2 for update`,
      [claimed.tenantId, claimed.id],
    );
    const row = rows[0];
    if (row === undefined) return 'gone';
    const attempt = row.attempt_count + 1;
    await tx.query(
      `insert into webhook_attempts (tenant_id, delivery_id, attempt, cycle, started_at, duration_ms, status_code,
         error_class, error_message, response_body_excerpt, worker)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        claimed.tenantId,
        claimed.id,
        attempt,
        claimed.cycle,
        new Date(claimed.claimedAt).toISOString(),
        outcome.durationMs,
        outcome.statusCode,
        outcome.errorClass,
        outcome.errorMessage,
        outcome.responseBodyExcerpt,
        options.owner,
      ],
    );

    if (options.circuit !== undefined) {
      const attempt = { tenantId: claimed.tenantId, endpointId: claimed.endpointId, outcome };
      opened.push(...(await recordCircuits(tx, [attempt], options.now, options.circuit)));
    }

    const ownsLease = row.lease_token === claimed.leaseToken && row.state === 'pending';
    const update = async (sets: string, params: unknown[] = []) => {
      await tx.query(
        `update webhook_deliveries set attempt_count = $3, last_status_code = $4, last_error_class = $5, ${sets}
          where tenant_id = $1 and id = $2`,
        [claimed.tenantId, claimed.id, attempt, outcome.statusCode, outcome.errorClass, ...params],
      );
    };
    const release = 'lease_owner = null, lease_token = null, lease_expires_at = null';

    if (outcome.errorClass === null && row.state === 'pending') {
      await update(`state = 'delivered', delivered_at = $6, next_attempt_at = null, ${release}`, [now]);
      return 'delivered';
    }
    if (!ownsLease) {
      await tx.query('update webhook_deliveries set attempt_count = $3 where tenant_id = $1 and id = $2', [
        claimed.tenantId,
        claimed.id,
        attempt,
      ]);
      return 'recorded_only';
    }
    if (outcome.errorClass === 'interrupted') {
      // The receiver may or may not have seen it; the schedule is not charged, the row is free at once.
      await update(release);
      return 'released';
    }
    const failures = row.cycle_attempt_count + 1;
    const delay = retryDelay(options.schedule, failures, options.random);
    if (delay !== undefined) {
      await update(`cycle_attempt_count = $6, next_attempt_at = $7, ${release}`, [
        failures,
        new Date(options.now + delay).toISOString(),
      ]);
      return 'retry';
    }
    await update(
      `state = 'dead_lettered', dead_lettered_at = $6, next_attempt_at = null, cycle_attempt_count = $7, ${release}`,
      [now, failures],
    );
    if (options.emit !== undefined) {
      committed.push(await emitDeadLettered(tx, options.emit, claimed, outcome, attempt));
    }
    return 'dead_lettered';
  });
  for (const publish of committed) publish();
  if (opened.length > 0) options.circuitOpened?.(opened);
  return result;
}

/**
 * Records `webhook.delivery.dead_lettered` for a delivery in the current transaction, scoped to its tenant
 * (RLS) from here on, so no system statement may follow. Its commit waits for the WAL flush even in a
 * worker transaction that relaxed it: the event is published once committed. Returns the publisher.
 */
export async function emitDeadLettered(
  tx: Queryable,
  emit: EmitTenantEvent,
  claimed: ClaimedDelivery,
  outcome: AttemptOutcome,
  attempts: number,
): Promise<AfterCommit> {
  await tx.query(
    `select set_config('role', '${TENANT_ROLE}', true), set_config('svc.tenant_id', $1, true),
            set_config('synchronous_commit', 'on', true)`,
    [claimed.tenantId],
  );
  return emit(tx, claimed.tenantId, DEAD_LETTERED_EVENT, {
    deliveryId: claimed.id,
    endpointId: claimed.endpointId,
    eventId: claimed.eventId,
    eventType: claimed.eventType,
    attempts,
    lastStatusCode: outcome.statusCode,
    lastErrorClass: outcome.errorClass,
    lastError: outcome.errorMessage,
  });
}
