import type { Queryable } from '../../../core/db/database.ts';
import type { DeliveryState } from '../schema.ts';
import { type CircuitOptions, circuitStatement, type OpenedCircuit, openedCircuits } from './circuit.ts';
import type { ClaimedDelivery } from './claim.ts';
import type { AttemptOutcome } from './send.ts';

export interface FinishedAttempt {
  claimed: ClaimedDelivery;
  outcome: AttemptOutcome;
  /** When the attempt ended (ms since epoch). */
  now: number;
}

/** A delivery row as the batch leaves it. */
export interface RowAfter {
  tenantId: string;
  state: DeliveryState;
  leaseToken: string | null;
  attemptCount: number;
  cycleAttemptCount: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastErrorClass: string | null;
  deliveredAt: string | null;
  deadLetteredAt: string | null;
  released: boolean;
}

export interface OutcomeWrites {
  /** Every attempt with its number. */
  attempts: readonly { f: FinishedAttempt; attempt: number }[];
  /** Every locked row (by id) as the batch leaves it. */
  rows: readonly (readonly [string, RowAfter])[];
  finished: readonly FinishedAttempt[];
  circuits: CircuitOptions | undefined;
  owner: string;
}

/**
 * Writes a recording batch's decisions in one statement: every attempt inserted, every row updated and
 * the endpoints' circuits moved on. Answers the circuits it opened.
 */
export async function writeOutcomes(tx: Queryable, input: OutcomeWrites): Promise<OpenedCircuit[]> {
  const params: unknown[] = [];
  const bind = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  /** `unnest($1::text[], $2::int[], ...)` of columns given as [type, values]. */
  const unnestOf = (columns: [string, unknown[]][]) =>
    `unnest(${columns.map(([type, values]) => `${bind(values)}::${type}[]`).join(', ')})`;
  const { attempts, rows } = input;
  const attemptsIn = unnestOf([
    ['text', attempts.map((a) => a.f.claimed.tenantId)],
    ['text', attempts.map((a) => a.f.claimed.id)],
    ['int', attempts.map((a) => a.attempt)],
    ['int', attempts.map((a) => a.f.claimed.cycle)],
    ['timestamptz', attempts.map((a) => new Date(a.f.claimed.claimedAt).toISOString())],
    ['int', attempts.map((a) => a.f.outcome.durationMs)],
    ['int', attempts.map((a) => a.f.outcome.statusCode)],
    ['text', attempts.map((a) => a.f.outcome.errorClass)],
    ['text', attempts.map((a) => a.f.outcome.errorMessage)],
    ['text', attempts.map((a) => a.f.outcome.responseBodyExcerpt)],
    ['text', attempts.map(() => input.owner)],
  ]);
  const rowsIn = unnestOf([
    ['text', rows.map(([, r]) => r.tenantId)],
    ['text', rows.map(([id]) => id)],
    ['text', rows.map(([, r]) => r.state)],
    ['int', rows.map(([, r]) => r.attemptCount)],
    ['int', rows.map(([, r]) => r.cycleAttemptCount)],
    ['timestamptz', rows.map(([, r]) => r.nextAttemptAt)],
    ['int', rows.map(([, r]) => r.lastStatusCode)],
    ['text', rows.map(([, r]) => r.lastErrorClass)],
    ['timestamptz', rows.map(([, r]) => r.deliveredAt)],
    ['timestamptz', rows.map(([, r]) => r.deadLetteredAt)],
    ['bool', rows.map(([, r]) => r.released)],
  ]);
  const circuits =
    input.circuits === undefined
      ? undefined
      : circuitStatement(
          input.finished.map((f) => ({
            tenantId: f.claimed.tenantId,
            endpointId: f.claimed.endpointId,
            outcome: f.outcome,
          })),
          Math.max(...input.finished.map((f) => f.now)),
          input.circuits,
          bind,
        );
  // Data-modifying CTEs run whether or not the final statement reads them.
  const last =
    circuits === undefined ? 'select null as opened where false' : `${circuits.ctes}\n${circuits.sql}`;
  const { rows: circuitRows } = await tx.query<Record<string, unknown>>(
    `with attempts_written as (
       insert into webhook_attempts (tenant_id, delivery_id, attempt, cycle, started_at, duration_ms,
         status_code, error_class, error_message, response_body_excerpt, worker)
       select * from ${attemptsIn}
     ),
     rows_written as (
       update webhook_deliveries d
          set state = u.state, attempt_count = u.attempt_count, cycle_attempt_count = u.cycle_attempt_count,
              next_attempt_at = u.next_attempt_at, last_status_code = u.last_status_code,
              last_error_class = u.last_error_class, delivered_at = u.delivered_at,
              dead_lettered_at = u.dead_lettered_at,
              lease_owner = case when u.released then null else d.lease_owner end,
              lease_token = case when u.released then null else d.lease_token end,
              lease_expires_at = case when u.released then null else d.lease_expires_at end
         from ${rowsIn}
              as u(tenant_id, id, state, attempt_count, cycle_attempt_count, next_attempt_at, last_status_code,
                   last_error_class, delivered_at, dead_lettered_at, released)
        where d.tenant_id = u.tenant_id and d.id = u.id
     )${circuits === undefined ? '' : ','}
     ${last}`,
    params,
  );
  return openedCircuits(circuitRows);
}
