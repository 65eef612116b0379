import { randomUUID } from 'node:crypto';
import type { Database } from '../../../core/db/database.ts';
import { systemTx } from '../../../core/db/tenant-tx.ts';

export interface ClaimedDelivery {
  id: string;
  tenantId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  body: string;
  traceId: string;
  traceFlags: string;
  cycle: number;
  url: string;
  /** Current secret first, then the retiring one while its grace lasts. */
  secrets: string[];
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
  /** At most this many live leases per endpoint, counting leases other workers hold. */
  perEndpoint: number;
  /** Only these tenants' deliveries (a worker dedicated to some tenants); undefined = all. */
  tenantIds?: readonly string[] | undefined;
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
  cycle: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  previous_owner: string | null;
  previous_attempt_at: Date | null;
  previous_count: number;
}

/**
 * Picks due deliveries fairly across endpoints (per endpoint in due order, capped by its live leases),
 * then locks them with SKIP LOCKED and leases them to `owner`. A row whose lease expired (its holder
 * died) is taken over; the attempt it lost is recorded as `interrupted`.
 */
export async function claimDueDeliveries(db: Database, options: ClaimOptions): Promise<ClaimedDelivery[]> {
  return (await claimDue(db, options)).claimed;
}

export interface ClaimResult {
  claimed: ClaimedDelivery[];
  /** Some due rows were taken by another worker in the meantime: there is work, look again soon. */
  contended: boolean;
}

export async function claimDue(db: Database, options: ClaimOptions): Promise<ClaimResult> {
  if (options.limit <= 0) return { claimed: [], contended: false };
  const now = new Date(options.now).toISOString();
  return systemTx(db, async (tx) => {
    const { rows: candidates } = await tx.query<{ id: string }>(
      `select c.id from (
         select d.id, d.next_attempt_at,
                row_number() over (partition by e.id order by d.next_attempt_at, d.id)
                + (select count(*) from webhook_deliveries l
                    where l.tenant_id = e.tenant_id and l.endpoint_id = e.id
                      and l.lease_owner is not null and l.lease_expires_at > $1) as slot
           from webhook_endpoints e
           cross join lateral (
             select d.id, d.next_attempt_at from webhook_deliveries d
              where d.tenant_id = e.tenant_id and d.endpoint_id = e.id
                and d.state = 'pending' and d.next_attempt_at <= $1
                and (d.lease_expires_at is null or d.lease_expires_at <= $1)
              order by d.next_attempt_at, d.id
              limit $2
           ) d
          where e.enabled and ($4::text[] is null or e.tenant_id = any($4::text[]))
       ) c
       where c.slot <= $2
       order by c.next_attempt_at, c.id
       limit $3`,
      [now, options.perEndpoint, options.limit, options.tenantIds ?? null],
    );
    if (candidates.length === 0) return { claimed: [], contended: false };

    const leaseToken = randomUUID();
    const { rows } = await tx.query<ClaimRow>(
      `with locked as (
         select d.id, d.lease_owner as previous_owner, d.last_attempt_at as previous_attempt_at,
                d.attempt_count as previous_count
           from webhook_deliveries d
          where d.id = any($1::text[]) and d.state = 'pending' and d.next_attempt_at <= $2
            and (d.lease_expires_at is null or d.lease_expires_at <= $2)
          for update skip locked
       )
       update webhook_deliveries d
          set lease_owner = $3, lease_token = $4, lease_expires_at = $5, last_attempt_at = $2,
              attempt_count = d.attempt_count + case when locked.previous_owner is null then 0 else 1 end
         from locked, webhook_endpoints e
        where d.id = locked.id and e.tenant_id = d.tenant_id and e.id = d.endpoint_id
       returning d.id, d.tenant_id, d.endpoint_id, d.event_id, d.event_type, d.body, d.trace_id, d.trace_flags,
                 d.cycle, e.url, e.secret, e.previous_secret, e.previous_secret_expires_at,
                 locked.previous_owner, locked.previous_attempt_at, locked.previous_count`,
      [
        candidates.map((c) => c.id),
        now,
        options.owner,
        leaseToken,
        new Date(options.now + options.leaseMs).toISOString(),
      ],
    );

    const takenOver = rows.filter((r) => r.previous_owner !== null);
    if (takenOver.length > 0) {
      await tx.query(
        `insert into webhook_attempts
           (tenant_id, delivery_id, attempt, cycle, started_at, error_class, error_message, worker)
         select tenant_id, delivery_id, attempt, cycle, started_at, 'interrupted', error_message, worker
           from unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::timestamptz[], $6::text[], $7::text[])
                as t(tenant_id, delivery_id, attempt, cycle, started_at, error_message, worker)
         on conflict do nothing`,
        [
          takenOver.map((r) => r.tenant_id),
          takenOver.map((r) => r.id),
          takenOver.map((r) => r.previous_count + 1),
          takenOver.map((r) => r.cycle),
          takenOver.map((r) => (r.previous_attempt_at ?? new Date(options.now)).toISOString()),
          takenOver.map(() => 'the worker holding the lease stopped before recording a result'),
          takenOver.map((r) => r.previous_owner ?? ''),
        ],
      );
    }

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
        cycle: r.cycle,
        url: r.url,
        secrets:
          r.previous_secret !== null &&
          r.previous_secret_expires_at !== null &&
          new Date(r.previous_secret_expires_at).getTime() > options.now
            ? [r.secret, r.previous_secret]
            : [r.secret],
        leaseToken,
        claimedAt: options.now,
      }))
      .sort((a, b) => (a.id < b.id ? -1 : 1));
    return { claimed, contended: claimed.length < candidates.length };
  });
}
