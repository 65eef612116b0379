import { systemRead } from '../../core/db/tenant-tx.ts';
import type { ModuleHost } from '../../core/modules/hooks.ts';
import { PollingWorker, type PollingWorkerOptions } from '../../core/modules/polling-worker.ts';
import { settleDue } from './verbs/settle-due.ts';

export interface SchedulerOptions extends PollingWorkerOptions {
  /**
   * Longest sleep without a wake (default 250 ms): what a lost wake, or an end moved by an instance that
   * then died, costs at most. One statement per poll.
   */
  maxPollMs?: number;
  /** Due auctions settled per look (default 100). */
  batch?: number;
}

/** A held row (a bid deciding, another instance settling it) is looked at again this soon. */
const BUSY_RETRY_MS = 20;
const ERROR_BACKOFF_MS = 1000;

/**
 * Starts scheduled auctions at `startsAt` and ends live ones at `endsAt`, with no request arriving. Every
 * instance runs one; each sleeps until the earliest start or end it knows of (the database says, on every
 * look), and is woken by the verbs that move one. Which instance gets there first does not matter:
 * `settleDue` changes a row only while it is still due, under its lock.
 */
export class AuctionScheduler extends PollingWorker {
  constructor(host: ModuleHost, options: SchedulerOptions = {}) {
    super(host, options, {
      maxPollMs: 250,
      batch: 100,
      errorBackoffMs: ERROR_BACKOFF_MS,
      failure: 'auction scheduler: settling due auctions failed',
    });
  }

  protected async tick(): Promise<void> {
    const { due, nextAt } = await this.look(this.clock.now());
    let busy = false;
    for (const { tenantId, id } of due) {
      if (!this.loop.running) return;
      const settled = await settleDue(this.context(tenantId), id);
      if (settled === 'busy') busy = true;
    }
    if (!this.loop.running || this.loop.woken) return;
    // Settling changed what comes next (a start sets an end): the next look says, at once.
    if (due.length > 0) return busy ? this.loop.sleep(BUSY_RETRY_MS) : this.loop.lookAgain();
    const delay = nextAt === undefined ? this.maxPollMs : nextAt - this.clock.now();
    // Already due (the clock moved while this look ran): look again at once rather than sleep.
    if (delay <= 0) {
      this.loop.lookAgain();
      return;
    }
    this.loop.sleep(Math.min(this.maxPollMs, delay));
  }

  /**
   * One statement across tenants: what is due to start or end at `now`, oldest first, or when nothing
   * is, the earliest start or end still to come (ms since epoch; undefined when none is).
   */
  private async look(now: number): Promise<{ due: { tenantId: string; id: string }[]; nextAt?: number }> {
    const { rows } = await systemRead<{
      tenant_id: string | null;
      id: string | null;
      next_at: string | null;
    }>(
      this.host.db,
      `with due as (
         (select tenant_id, id from auctions where status = 'scheduled' and starts_at <= $1
             and ($3::text[] is null or tenant_id = any($3::text[]))
           order by starts_at limit $2)
         union all
         (select tenant_id, id from auctions where status = 'live' and ends_at <= $1
             and ($3::text[] is null or tenant_id = any($3::text[]))
           order by ends_at limit $2))
       select tenant_id, id, null as next_at from due
       union all
       select null, null, to_char(least(
           (select min(starts_at) from auctions where status = 'scheduled'
              and ($3::text[] is null or tenant_id = any($3::text[]))),
           (select min(ends_at) from auctions where status = 'live'
              and ($3::text[] is null or tenant_id = any($3::text[])))
         ) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
       where not exists (select 1 from due)`,
      [new Date(now).toISOString(), this.batch, this.tenants()],
    );
    const due: { tenantId: string; id: string }[] = [];
    let nextAt: number | undefined;
    for (const row of rows) {
      if (row.tenant_id !== null && row.id !== null) due.push({ tenantId: row.tenant_id, id: row.id });
      else if (row.next_at !== null) nextAt = Date.parse(row.next_at);
    }
    return { due, nextAt };
  }
}
