import type { Queryable } from '../../../core/db/database.ts';
import type { AttemptOutcome } from './send.ts';

/**
 * The circuit breaker of an endpoint, kept on its row so every worker on every instance sees it.
 *
 * - closed: attempts go as usual, up to the endpoint's concurrency.
 * - open: `timeouts` timeouts in a row (no answer at all, the attempts that hold a connection longest)
 *   open it for `openMs`, doubled each time it opens again without an answer in between (up to 32 times).
 *   No attempt is made to the endpoint meanwhile; its deliveries stay pending, untouched, and no attempt
 *   is recorded or charged to the retry schedule for the wait.
 * - half-open: once the time is up, one attempt at a time probes it. A timeout opens it again; an answer
 *   of any status (the receiver is there) closes it and clears the count.
 * Connection errors and TLS failures neither count nor clear: they end at once and hold nothing.
 */
export interface CircuitOptions {
  /** Timeouts in a row that open the circuit; 0 = never. */
  timeouts: number;
  /** How long it first stays open (ms). */
  openMs: number;
}

/** Doubling stops here: a circuit opens for at most openMs * 2^5. */
export const MAX_CIRCUIT_DOUBLINGS = 5;

export interface EndpointAttempt {
  tenantId: string;
  endpointId: string;
  outcome: Pick<AttemptOutcome, 'statusCode' | 'errorClass'>;
}

export interface OpenedCircuit {
  tenantId: string;
  endpointId: string;
  openUntil: string;
  consecutiveTimeouts: number;
}

interface Change {
  tenantId: string;
  endpointId: string;
  /** An answer came: the count starts again from the timeouts after the last answer. */
  answered: boolean;
  timeouts: number;
}

/** Per endpoint, in order: whether an answer came, and the timeouts after the last one. */
function changesOf(attempts: readonly EndpointAttempt[]): Change[] {
  const changes = new Map<string, Change>();
  for (const { tenantId, endpointId, outcome } of attempts) {
    const key = `${tenantId}\u0000${endpointId}`;
    const change = changes.get(key) ?? { tenantId, endpointId, answered: false, timeouts: 0 };
    changes.set(key, change);
    if (outcome.statusCode !== null) {
      change.answered = true;
      change.timeouts = 0;
    } else if (outcome.errorClass === 'timeout') {
      change.timeouts += 1;
    }
  }
  return [...changes.values()].filter((c) => c.answered || c.timeouts > 0);
}

interface CircuitRow {
  tenant_id: string;
  id: string;
  circuit_open_until: Date;
  consecutive_timeouts: number;
  opened: boolean;
}

/**
 * The circuit update as the tail of a statement (`ctes` go into its WITH list, `sql` is the final update),
 * its values added with `bind`; undefined when no endpoint can change. The row's own values are read
 * under its lock, so workers recording at once add up. An endpoint with nothing to change (answered, no
 * count, closed: every healthy one) is not touched. An endpoint row locked by someone else (being updated
 * or deleted, which then waits for this transaction's delivery rows) is skipped rather than waited for:
 * waiting would close a deadlock; the outcome is then not counted.
 */
export function circuitStatement(
  attempts: readonly EndpointAttempt[],
  now: number,
  options: CircuitOptions,
  bind: (value: unknown) => string,
): { ctes: string; sql: string } | undefined {
  const changes = changesOf(attempts);
  if (changes.length === 0) return undefined;
  const [tenants, endpoints, answered, timeouts] = [
    bind(changes.map((c) => c.tenantId)),
    bind(changes.map((c) => c.endpointId)),
    bind(changes.map((c) => c.answered)),
    bind(changes.map((c) => c.timeouts)),
  ];
  const [at, limit, openMs] = [
    bind(new Date(now).toISOString()),
    bind(options.timeouts),
    bind(options.openMs),
  ];
  return {
    ctes: `u as (
       select * from unnest(${tenants}::text[], ${endpoints}::text[], ${answered}::bool[], ${timeouts}::int[])
         as u(tenant_id, endpoint_id, answered, timeouts)
     ),
     next as (
       select e.tenant_id, e.id, u.answered,
              (case when u.answered then 0 else e.consecutive_timeouts end) + u.timeouts as timeouts,
              u.timeouts > 0 and ${limit}::int > 0
                and (case when u.answered then 0 else e.consecutive_timeouts end) + u.timeouts >= ${limit}::int
                and (e.circuit_open_until is null or e.circuit_open_until <= ${at}::timestamptz) as opens
         from webhook_endpoints e join u on e.tenant_id = u.tenant_id and e.id = u.endpoint_id
        where u.timeouts > 0 or e.consecutive_timeouts > 0 or e.circuit_open_until is not null
        for update of e skip locked
     )`,
    sql: `update webhook_endpoints e
        set consecutive_timeouts = n.timeouts,
            circuit_trips = case when n.opens then e.circuit_trips + 1
                                 when n.answered then 0 else e.circuit_trips end,
            circuit_opened_at = case when n.opens then ${at}::timestamptz
                                     when n.answered and n.timeouts = 0 then null else e.circuit_opened_at end,
            circuit_open_until = case
              when n.opens then ${at}::timestamptz
                + (${openMs}::bigint * (1::bigint << least(e.circuit_trips, ${MAX_CIRCUIT_DOUBLINGS}))) * interval '1 millisecond'
              when n.answered and n.timeouts = 0 then null else e.circuit_open_until end
       from next n
      where e.tenant_id = n.tenant_id and e.id = n.id
      returning e.tenant_id, e.id, e.circuit_open_until, e.consecutive_timeouts,
                (e.circuit_opened_at = ${at}::timestamptz and n.opens) as opened`,
  };
}

/** The circuits a circuit statement's rows say it opened (a straggler timing out while it is already open does not reopen it). */
export function openedCircuits(rows: readonly Partial<CircuitRow>[]): OpenedCircuit[] {
  return rows
    .filter((r): r is CircuitRow => r.opened === true)
    .map((r) => ({
      tenantId: r.tenant_id,
      endpointId: r.id,
      openUntil: new Date(r.circuit_open_until).toISOString(),
      consecutiveTimeouts: r.consecutive_timeouts,
    }));
}

/**
 * Applies finished attempts to their endpoints' circuits, in the recording transaction (a system one),
 * as `circuitStatement` says. Answers the circuits this opened.
 */
export async function recordCircuits(
  tx: Queryable,
  attempts: readonly EndpointAttempt[],
  now: number,
  options: CircuitOptions,
): Promise<OpenedCircuit[]> {
  const params: unknown[] = [];
  const statement = circuitStatement(attempts, now, options, (value) => {
    params.push(value);
    return `$${params.length}`;
  });
  if (statement === undefined) return [];
  const { rows } = await tx.query<CircuitRow>(`with ${statement.ctes}\n${statement.sql}`, params);
  return openedCircuits(rows);
}
