import { randomUUID } from 'node:crypto';
import type { Database } from '../../../core/db/database.ts';
import { systemTx } from '../../../core/db/tenant-tx.ts';
import { tracingOn } from '../../../core/ops/tracing/spans.ts';
import { ENDPOINT_SECRET, PREVIOUS_ENDPOINT_SECRET, type StoredSecret } from '../endpoint-secrets.ts';

export interface ClaimedDelivery {
  id: string;
  tenantId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  body: string;
  traceId: string;
  traceFlags: string;
  /** The span that recorded the event (its trace metadata), the attempt span's parent; only while tracing. */
  parentSpanId: string | undefined;
  cycle: number;
  url: string;
  /** Current secret first, then the retiring one while its grace lasts; as stored (see readSecret). */
  secrets: StoredSecret[];
  leaseToken: string;
  /** When the lease was taken: the attempt's start time. */
  claimedAt: number;
}

export interface ClaimOptions {
  owner: string;
  now: number;
  leaseMs: number;
  /** At most this many rows. */
  limit: number;
  /**
   * At most this many live leases per endpoint, counting leases other workers hold; one while the
   * endpoint's circuit is half-open, none while it is open (circuit.ts).
   */
  perEndpoint: number;
  /** At most this many live leases per tenant, counting leases other workers hold; undefined = no cap. */
  perTenant?: number | undefined;
  /** Only these tenants' deliveries (a worker dedicated to some tenants); undefined = all. */
  tenantIds?: readonly string[] | undefined;
  /**
   * This worker's leased deliveries whose request has already been answered (the outcome is being
   * recorded): they no longer occupy the receiver, so they do not count against `perEndpoint`.
   */
  answeredIds?: readonly string[];
  /**
   * `db` is the worker's own PostgreSQL pool whose connections run as `svc_system` (Database.dedicated):
   * the claim is then one statement outside a transaction, one round trip instead of three.
   */
  systemConnections?: boolean;
}

interface ClaimRow {
  id: string;
  tenant_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  body: string;
  trace_id: string;
  trace_flags: string;
  parent_span_id: string | null;
  cycle: number;
  url: string;
  secret: string | null;
  secret_encrypted: string | null;
  previous_secret: string | null;
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: Date | null;
  previous_owner: string | null;
  previous_attempt_at: Date | null;
  previous_count: number;
}

/**
 * Picks due deliveries fairly: across tenants in turn, and within a tenant across its endpoints in turn
 * (each in due order), capped by the live leases of the endpoint and of the tenant, so one tenant's hanging
 * receivers hold at most its own share of the workers. Then it locks them with SKIP LOCKED and leases them to `owner`. A row whose lease expired (its holder
 * died) is taken over; the attempt it lost is recorded as `interrupted`.
 */
export async function claimDueDeliveries(db: Database, options: ClaimOptions): Promise<ClaimedDelivery[]> {
  return (await claimDue(db, options)).claimed;
}

export interface ClaimResult {
  claimed: ClaimedDelivery[];
  /** Some due rows were taken by another worker in the meantime: there is work, look again soon. */
  contended: boolean;
  /**
   * When work may next become claimable without a wake (ms since epoch): the earliest future retry or
   * lease expiry; undefined when there is none.
   */
  nextDueAt: number | undefined;
}

interface ClaimStatementRow extends Partial<ClaimRow> {
  candidates: number;
  next_due: Date | null;
  next_lease: Date | null;
  next_circuit: Date | null;
}

/**
 * One statement, so one round trip: pick the candidates, lock and lease the ones no other worker holds
 * (SKIP LOCKED), record the attempts a dead holder lost, and say when to look next. It always answers at
 * least one row (the counts); claimed rows fill the rest of the columns.
 */
const claimSql = (parentSpan: string) => `
with leases as (
  -- Live leases by endpoint, every worker's: n leaves out the answered ones this worker is recording,
  -- n_all counts them (a half-open circuit's next probe waits until the last one's outcome is written).
  select tenant_id, endpoint_id, (count(*) filter (where id <> all($8::text[])))::int as n,
         count(*)::int as n_all
    from webhook_deliveries
   where lease_owner is not null and lease_expires_at > $1
     and ($4::text[] is null or tenant_id = any($4::text[]))
   group by tenant_id, endpoint_id
),
tenant_leases as (
  select tenant_id, sum(n)::int as n from leases group by tenant_id
),
per_endpoint as (
  -- An endpoint's k-th due row takes its slot k after its live leases; a half-open circuit has one slot.
  select d.id, e.tenant_id, d.next_attempt_at,
         row_number() over (partition by e.id order by d.next_attempt_at, d.id)
         + coalesce(case when e.circuit_open_until is null then l.n else l.n_all end, 0) as slot,
         case when e.circuit_open_until is null then $2 else 1 end as cap
    from webhook_endpoints e
    left join leases l on l.tenant_id = e.tenant_id and l.endpoint_id = e.id
    cross join lateral (
      select d.id, d.next_attempt_at from webhook_deliveries d
       where d.tenant_id = e.tenant_id and d.endpoint_id = e.id
         and d.state = 'pending' and d.next_attempt_at <= $1
         and (d.lease_expires_at is null or d.lease_expires_at <= $1)
       order by d.next_attempt_at, d.id
       limit $2
    ) d
   where e.enabled and ($4::text[] is null or e.tenant_id = any($4::text[]))
     and (e.circuit_open_until is null or e.circuit_open_until <= $1)
),
per_tenant as (
  -- Within a tenant, its endpoints in turn; the tenant's live leases count against its cap.
  select p.id, p.next_attempt_at,
         row_number() over (partition by p.tenant_id order by p.slot, p.next_attempt_at, p.id)
         + coalesce(t.n, 0) as tenant_slot
    from per_endpoint p left join tenant_leases t on t.tenant_id = p.tenant_id
   where p.slot <= p.cap
),
candidates as (
  -- Across tenants in turn: every tenant's first free slot before any tenant's second.
  select id from per_tenant
   where tenant_slot <= $9
   order by tenant_slot, next_attempt_at, id
   limit $3
),
locked as (
  select d.id, d.lease_owner as previous_owner, d.last_attempt_at as previous_attempt_at,
         d.attempt_count as previous_count
    from webhook_deliveries d
   where d.id in (select id from candidates) and d.state = 'pending' and d.next_attempt_at <= $1
     and (d.lease_expires_at is null or d.lease_expires_at <= $1)
   for update skip locked
),
claimed as (
  update webhook_deliveries d
     set lease_owner = $5, lease_token = $6, lease_expires_at = $7, last_attempt_at = $1,
         attempt_count = d.attempt_count + case when locked.previous_owner is null then 0 else 1 end
    from locked, webhook_endpoints e
   where d.id = locked.id and e.tenant_id = d.tenant_id and e.id = d.endpoint_id
  returning d.id, d.tenant_id, d.endpoint_id, d.event_id, d.event_type, d.body, d.trace_id, d.trace_flags,
            ${parentSpan} as parent_span_id, d.cycle, e.url, e.secret, e.secret_encrypted, e.previous_secret,
            e.previous_secret_encrypted, e.previous_secret_expires_at,
            locked.previous_owner, locked.previous_attempt_at, locked.previous_count
),
interrupted as (
  insert into webhook_attempts
    (tenant_id, delivery_id, attempt, cycle, started_at, error_class, error_message, worker)
  select tenant_id, id, previous_count + 1, cycle, coalesce(previous_attempt_at, $1), 'interrupted',
         'the worker holding the lease stopped before recording a result', previous_owner
    from claimed where previous_owner is not null
  on conflict do nothing
)
select c.*, m.candidates, m.next_due, m.next_lease, m.next_circuit, m.relaxed
  from (select (select count(*)::int from candidates) as candidates,
               -- The lease is bookkeeping: no wait for the WAL flush (see claimDue), also when this
               -- statement is its own transaction.
               set_config('synchronous_commit', 'off', true) as relaxed,
               (select min(next_attempt_at) from webhook_deliveries
                 where state = 'pending' and next_attempt_at > $1
                   and ($4::text[] is null or tenant_id = any($4::text[]))) as next_due,
               (select min(lease_expires_at) from webhook_deliveries
                 where lease_owner is not null and lease_expires_at > $1
                   and ($4::text[] is null or tenant_id = any($4::text[]))) as next_lease,
               (select min(circuit_open_until) from webhook_endpoints
                 where circuit_open_until > $1
                   and ($4::text[] is null or tenant_id = any($4::text[]))) as next_circuit) m
  left join claimed c on true`;

const CLAIM_SQL = claimSql('null::text');
/** While tracing: the event's span from its trace metadata, one primary-key read per claimed row. */
const TRACED_CLAIM_SQL = claimSql(
  `(select ev.trace->>'spanId' from events ev where ev.tenant_id = d.tenant_id and ev.id = d.event_id)`,
);

export async function claimDue(db: Database, options: ClaimOptions): Promise<ClaimResult> {
  const now = new Date(options.now).toISOString();
  const leaseToken = randomUUID();
  // The lease is the worker's own bookkeeping: a commit lost in a database crash only means the row is
  // claimed (and delivered) again, which at-least-once delivery allows. So it skips the WAL flush wait.
  const sql = tracingOn() ? TRACED_CLAIM_SQL : CLAIM_SQL;
  const params = [
    now,
    options.perEndpoint,
    Math.max(0, options.limit),
    options.tenantIds ?? null,
    options.owner,
    leaseToken,
    new Date(options.now + options.leaseMs).toISOString(),
    options.answeredIds ?? [],
    options.perTenant ?? 2_147_483_647,
  ];
  // One statement is atomic on its own: the transaction around it only set the role, which the worker's
  // own connections already have.
  const result =
    options.systemConnections === true
      ? await db.query<ClaimStatementRow>(sql, params)
      : await systemTx(db, (tx) => tx.query<ClaimStatementRow>(sql, params), { relaxedDurability: true });
  const meta = result.rows[0];
  const rows = result.rows.filter((r): r is ClaimStatementRow & ClaimRow => r.id != null);
  const nextTimes = [meta?.next_due, meta?.next_lease, meta?.next_circuit]
    .filter((value): value is Date => value !== null && value !== undefined)
    .map((value) => new Date(value).getTime());
  const nextDueAt = nextTimes.length === 0 ? undefined : Math.min(...nextTimes);
  const claimed = rows
    .map((r) => ({
      id: r.id,
      tenantId: r.tenant_id,
      endpointId: r.endpoint_id,
      eventId: r.event_id,
      eventType: r.event_type,
      body: r.body,
      traceId: r.trace_id,
      traceFlags: r.trace_flags,
      parentSpanId: r.parent_span_id ?? undefined,
      cycle: r.cycle,
      url: r.url,
      secrets: [
        { column: ENDPOINT_SECRET, encrypted: r.secret_encrypted, plain: r.secret },
        ...(r.previous_secret_expires_at !== null &&
        new Date(r.previous_secret_expires_at).getTime() > options.now
          ? [
              {
                column: PREVIOUS_ENDPOINT_SECRET,
                encrypted: r.previous_secret_encrypted,
                plain: r.previous_secret,
              },
            ]
          : []),
      ],
      leaseToken,
      claimedAt: options.now,
    }))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  return { claimed, contended: claimed.length < (meta?.candidates ?? 0), nextDueAt };
}
