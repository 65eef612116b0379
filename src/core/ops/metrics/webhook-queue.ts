import { Gauge, type Registry } from 'prom-client';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import { systemRead } from '../../db/tenant-tx.ts';

/**
 * The webhook queue across tenants, in one statement: pending rows are read through the partial indexes
 * on `state = 'pending'`; dead-lettered rows are counted by a scan, which is why the answer is cached.
 */
const QUEUE_SQL = `
select
  count(*) filter (where cycle_attempt_count = 0)::int as pending,
  count(*) filter (where cycle_attempt_count > 0)::int as retrying,
  coalesce(extract(epoch from $1::timestamptz - min(created_at)), 0)::float8 as oldest_pending,
  coalesce(extract(epoch from $1::timestamptz - min(next_attempt_at)
    filter (where lease_owner is null and next_attempt_at <= $1::timestamptz)), 0)::float8 as lag,
  (select count(*) from webhook_deliveries where state = 'dead_lettered')::int as dead_lettered
from webhook_deliveries where state = 'pending'`;

interface QueueFigures {
  pending: number;
  retrying: number;
  dead_lettered: number;
  oldest_pending: number;
  lag: number;
}

/** A scrape reads the database at most once per `maxAgeMs`; scrapes meanwhile get the last answer. */
export const QUEUE_CACHE_MS = 5000;

/**
 * `svc_webhook_queue_depth{state}`, `svc_webhook_oldest_pending_age_seconds` and
 * `svc_webhook_outbox_lag_seconds`, read from the deliveries table when scraped (every instance reports
 * the same, cluster-wide figures).
 */
export function webhookQueueGauges(
  registry: Registry,
  { db, clock, report }: { db: Database; clock: Clock; report: (error: unknown) => void },
  maxAgeMs = QUEUE_CACHE_MS,
): void {
  let last: { at: number; figures: Promise<QueueFigures | undefined> } | undefined;
  const figures = (): Promise<QueueFigures | undefined> => {
    const now = clock.now();
    if (last !== undefined && now - last.at < maxAgeMs) return last.figures;
    const read = systemRead<QueueFigures>(db, QUEUE_SQL, [new Date(now).toISOString()]).then(
      ({ rows }) => rows[0],
      (error: unknown) => {
        report(error);
        return undefined;
      },
    );
    last = { at: now, figures: read };
    return read;
  };
  new Gauge({
    name: 'svc_webhook_queue_depth',
    help: 'Webhook deliveries waiting, across tenants: pending (no failure yet), retrying, dead_lettered',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const f = await figures();
      if (f === undefined) return;
      this.set({ state: 'pending' }, f.pending);
      this.set({ state: 'retrying' }, f.retrying);
      this.set({ state: 'dead_lettered' }, f.dead_lettered);
    },
  });
  new Gauge({
    name: 'svc_webhook_oldest_pending_age_seconds',
    help: 'Age of the oldest pending webhook delivery, across tenants (0 when none)',
    registers: [registry],
    async collect() {
      const f = await figures();
      if (f !== undefined) this.set(f.oldest_pending);
    },
  });
  new Gauge({
    name: 'svc_webhook_outbox_lag_seconds',
    help: 'How long the oldest due, unclaimed webhook delivery has waited for a worker (0 when none)',
    registers: [registry],
    async collect() {
      const f = await figures();
      if (f !== undefined) this.set(f.lag);
    },
  });
}
