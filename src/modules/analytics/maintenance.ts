import type { ServiceContext } from '../../core/context.ts';
import { systemTx } from '../../core/db/tenant-tx.ts';
import type { BackgroundWorker, ModuleHost } from '../../core/modules/hooks.ts';
import { MAINTENANCE_AFTER_START_MS, PeriodicWorker } from '../../core/modules/periodic-worker.ts';
import { ensurePartitions } from './postgres-store.ts';
import { analyticsStore } from './settings.ts';

const DAY = 86_400_000;
/** The advisory lock a pass holds: one instance at a time maintains the tables. */
export const MAINTENANCE_LOCK = 0x5_17c_0120;
const DEFAULT_RETENTION_DAYS = 400;

export interface MaintenancePass {
  ran: boolean;
  deleted: Record<string, number>;
  dropped: string[];
}

/**
 * Keeps the event table ready and bounded: creates the monthly partitions from last month to two months
 * ahead, deletes each tenant's events past its retention (`retentionDays`), and drops whole partitions
 * past the longest retention any tenant has. Runs just after start (MAINTENANCE_AFTER_START_MS) and then
 * every `intervalMs` (default an hour).
 */
export class AnalyticsMaintenance implements BackgroundWorker {
  private readonly periodic: PeriodicWorker;

  constructor(
    private readonly host: ModuleHost,
    private readonly context: (tenantId: string) => ServiceContext,
    intervalMs = 3_600_000,
  ) {
    this.periodic = new PeriodicWorker({
      clock: host.clock,
      intervalMs,
      // Ingestion makes a missing partition itself, so the start's own work may go first.
      firstPassAfterMs: MAINTENANCE_AFTER_START_MS,
      pass: () => this.pass(),
      failed: (err) => host.log.error({ err }, 'analytics maintenance failed'),
    });
  }

  start(): void {
    this.periodic.start();
  }

  stop(): Promise<void> {
    return this.periodic.stop();
  }

  /** One pass (tests call it directly). */
  async pass(): Promise<MaintenancePass> {
    const { db, clock } = this.host;
    const attempt = await db.tryWithAdvisoryLock(MAINTENANCE_LOCK, async () => {
      const now = clock.now();
      await ensurePartitions(db, [{ ts: now - 31 * DAY }, { ts: now + 62 * DAY }]);
      const tenants = await systemTx(db, async (tx) => {
        const { rows } = await tx.query<{ tenant_id: string; days: number }>(
          `select h.tenant_id, coalesce((m.config ->> 'retentionDays')::int, ${DEFAULT_RETENTION_DAYS}) as days
             from (select distinct tenant_id from analytics_hourly) h
             left join tenant_modules m on m.tenant_id = h.tenant_id and m.module = 'analytics'`,
        );
        return rows;
      });
      const deleted = new Map<string, number>();
      let longest = DEFAULT_RETENTION_DAYS;
      for (const { tenant_id: tenantId, days } of tenants) {
        longest = Math.max(longest, Number(days));
        const n = await analyticsStore.deleteBefore(this.context(tenantId), now - Number(days) * DAY);
        if (n > 0) deleted.set(tenantId, n);
      }
      const dropped = await analyticsStore.dropPartitionsBefore(db, now - longest * DAY);
      return { ran: true, deleted: Object.fromEntries(deleted), dropped };
    });
    return attempt.acquired ? attempt.result : { ran: false, deleted: {}, dropped: [] };
  }
}
