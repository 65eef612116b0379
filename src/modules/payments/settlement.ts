import { systemRead } from '../../core/db/tenant-tx.ts';
import type { OutboxWriter } from '../../core/events/store.ts';
import type { TenantEvent } from '../../core/events/types.ts';
import type { ModuleHost } from '../../core/modules/hooks.ts';
import { PollingWorker, type PollingWorkerOptions } from '../../core/modules/polling-worker.ts';
import { AUCTION_ENDED, soldAuction } from './ended-auction.ts';
import { resumeRefund } from './refunds/send-refund.ts';
import { resumeStep } from './steps/run-step.ts';
import { settleAuction } from './verbs/settle-auction.ts';

/**
 * The outbox writer: every sold auction's `auction.ended` records a settlement in the statement that
 * records the event, so an auction that ended is never missed, and the same event seen twice records one.
 */
export function settlementOutbox(wake: () => void): OutboxWriter {
  return {
    statement(events: readonly TenantEvent[], bind) {
      const sold = events.flatMap((event) => {
        if (event.type !== AUCTION_ENDED) return [];
        const sale = soldAuction(event.data);
        return sale === undefined ? [] : [{ event, sale }];
      });
      if (sold.length === 0) return undefined;
      return `insert into payment_settlements (tenant_id, auction_id, event_id, data, created_at)
              select ${bind(sold[0]?.event.tenantId)}, s.auction_id, s.event_id, s.data, s.at
                from unnest(${bind(sold.map((s) => s.sale.auctionId))}::text[],
                            ${bind(sold.map((s) => s.event.id))}::text[],
                            ${bind(sold.map((s) => JSON.stringify(s.sale)))}::jsonb[],
                            ${bind(sold.map((s) => s.event.createdAt))}::timestamptz[])
                     as s(auction_id, event_id, data, at)
              on conflict (tenant_id, auction_id) do nothing
              returning auction_id`;
    },
    committed(rows) {
      if (rows.length > 0) wake();
    },
  };
}

export interface SettlementOptions extends PollingWorkerOptions {
  /** Longest sleep without a wake (default 1 s): what a lost wake costs at most. */
  maxPollMs?: number;
  /** Settlements taken per look (default 50). */
  batch?: number;
}

/**
 * Creates the payments of recorded settlements: woken by the outbox writer after commit, and polling as
 * the fallback (a wake lost, an instance that died before it settled). Every instance runs one;
 * `settleAuction` makes a race between them harmless. It also recovers provider calls whose lease ran
 * out (their instance died between the call and its apply; steps.ts), asking again with the same key.
 */
export class SettlementWorker extends PollingWorker {
  constructor(host: ModuleHost, options: SettlementOptions = {}) {
    super(host, options, {
      maxPollMs: 1000,
      batch: 50,
      errorBackoffMs: 1000,
      failure: 'payments: settling ended auctions failed',
    });
  }

  protected async tick(): Promise<void> {
    const { rows: pending } = await systemRead<{ tenant_id: string; auction_id: string }>(
      this.host.db,
      `select tenant_id, auction_id from payment_settlements
        where state = 'pending' and ($2::text[] is null or tenant_id = any($2::text[]))
        order by created_at limit $1`,
      [this.batch, this.tenants()],
    );
    for (const row of pending) {
      if (!this.loop.running) return;
      try {
        await settleAuction(this.context(row.tenant_id), row.auction_id);
      } catch (error) {
        this.host.log.error(
          { err: error, auctionId: row.auction_id },
          'payments: settling an auction failed',
        );
      }
    }
    const recovered = await this.recover();
    if (!this.loop.running || this.loop.woken) return;
    if (pending.length >= this.batch || recovered >= this.batch) return this.loop.lookAgain();
    this.loop.sleep(this.maxPollMs);
  }

  /** Payments' steps and refunds' calls whose lease ran out, resumed; answers how many were found. */
  private async recover(): Promise<number> {
    const { rows: open } = await systemRead<{ tenant_id: string; id: string; kind: 'payment' | 'refund' }>(
      this.host.db,
      `(select tenant_id, id, 'payment' as kind from payments
         where step is not null and step_until <= $2 and ($3::text[] is null or tenant_id = any($3::text[]))
         order by step_until limit $1)
       union all
       (select tenant_id, id, 'refund' as kind from payment_refunds
         where call_until <= $2 and status = 'pending' and ($3::text[] is null or tenant_id = any($3::text[]))
         order by call_until limit $1)`,
      [this.batch, new Date(this.clock.now()).toISOString(), this.tenants()],
    );
    for (const row of open) {
      if (!this.loop.running) break;
      try {
        const ctx = this.context(row.tenant_id);
        await (row.kind === 'payment' ? resumeStep(ctx, row.id) : resumeRefund(ctx, row.id));
      } catch (error) {
        this.host.log.warn(
          { err: error, id: row.id },
          'payments: recovering a provider call failed; it is tried again later',
        );
      }
    }
    return open.length;
  }
}
