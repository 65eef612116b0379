import { systemRead } from '../../core/db/tenant-tx.ts';
import type { ModuleHost } from '../../core/modules/hooks.ts';
import { PollingWorker, type PollingWorkerOptions } from '../../core/modules/polling-worker.ts';
import { settleDue } from './verbs/settle-due.ts';

export interface SchedulerOptions extends PollingWorkerOptions {
  /**
   * Longest sleep without a wake (default 250 ms): what a lost wake, or an end moved by an instance that
   * then died, costs at most. Two indexed look-ups per poll, each one statement.
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
    const now = this.clock.now();
    const due = await this.dueAuctions(now);
    let busy = false;
    for (const { tenantId, id } of due) {
      if (!this.loop.running) return;
      const settled = await settleDue(this.context(tenantId), id);
      if (settled === 'busy') busy = true;
    }
    if (!this.loop.running || this.loop.woken) return;
    if (due.length >= this.batch) {
      this.loop.lookAgain();
      return;
    }
    if (busy) return this.loop.sleep(BUSY_RETRY_MS);
    const next = await this.nextDueAt();
    const delay = next === undefined ? this.maxPollMs : next - this.clock.now();
    // Already due (the clock moved while this look ran): look again at once rather than sleep.
    if (delay <= 0) {
      this.loop.lookAgain();
      return;
    }
    this.loop.sleep(Math.min(this.maxPollMs, delay));
  }

  /** Across tenants: what is due to start or end at `now`, oldest first. */
  private async dueAuctions(now: number): Promise<{ tenantId: string; id: string }[]> {
    const at = new Date(now).toISOString();
    const { rows } = await systemRead<{ tenant_id: string; id: string }>(
      this.host.db,
      `(select tenant_id, id from auctions where status = 'scheduled' and starts_at <= $1
           and ($3::text[] is null or tenant_id = any($3::text[]))
         order by starts_at limit $2)
       union all
       (select tenant_id, id from auctions where status = 'live' and ends_at <= $1
           and ($3::text[] is null or tenant_id = any($3::text[]))
         order by ends_at limit $2)`,
      [at, this.batch, this.tenants()],
    );
    return rows.map((r) => ({ tenantId: r.tenant_id, id: r.id }));
  }

  /** The earliest start or end still to come, in ms since epoch. */
  private async nextDueAt(): Promise<number | undefined> {
    const { rows } = await systemRead<{ at: string | null }>(
      this.host.db,
      `select to_char(least(
          (select min(starts_at) from auctions where status = 'scheduled'
             and ($1::text[] is null or tenant_id = any($1::text[]))),
          (select min(ends_at) from auctions where status = 'live'
             and ($1::text[] is null or tenant_id = any($1::text[])))
        ) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at`,
      [this.tenants()],
    );
    const at = rows[0]?.at;
    return at === null || at === undefined ? undefined : Date.parse(at);
  }
}
