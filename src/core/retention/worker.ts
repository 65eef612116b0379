import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Clock, Timer } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { systemTx } from '../db/tenant-tx.ts';
import type { BackgroundWorker } from '../modules/hooks.ts';
import type { ActiveRetention } from './rules.ts';

/** Its name among the app's workers (`services.workers`); no module can have it (module names have no `:`). */
export const RETENTION_WORKER = 'core:retention';
/** The advisory lock a pass holds, so that one instance at a time runs one (see Database.tryWithAdvisoryLock). */
export const RETENTION_LOCK = 0x5_17c_0003;
/** Rows per delete statement: a large backlog is worked through in short transactions. */
const BATCH_SIZE = 1000;
/** The first pass after start-up, so instances that restart more often than the interval still run some. */
const FIRST_PASS_MS = 60_000;

export interface RetentionLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface RetentionWorkerOptions {
  db: Database;
  clock: Clock;
  rules: readonly ActiveRetention[];
  /** Between passes (SVC_RETENTION_INTERVAL_MS). */
  intervalMs: number;
  /** Rows per delete statement (default 1000). */
  batchSize?: number;
  /** The first pass this long after start (default 1 minute, or the interval when shorter). */
  firstPassMs?: number;
  log?: RetentionLog;
  /** Named in the log lines of the passes it runs; default host:pid:random. */
  instanceId?: string;
  /** Delete only these tenants' rows (tests on a shared database); default every tenant's. */
  tenantIds?: readonly string[];
}

/** What one pass did: skipped because another instance was running one, or rows deleted per rule. */
export type RetentionPass = { ran: false } | { ran: true; deleted: Record<string, number> };

const silentLog: RetentionLog = { info() {}, error() {} };

/**
 * Deletes the rows that retention rules say are old enough: every rule, oldest rows first, in batches of
 * `batchSize` rows per statement until none are left, on every tenant (as `svc_system`, like every worker
 * that serves no single tenant). Every instance runs one, but a pass holds an advisory lock and an instance
 * that finds it taken skips its turn, so with several instances one pass runs at a time.
 */
export class RetentionWorker implements BackgroundWorker {
  readonly instanceId: string;
  private running = false;
  /** Set by stop(): a pass under way ends after its current batch. */
  private stopped = false;
  private timer: Timer | undefined;
  private passing: Promise<RetentionPass> | undefined;
  private readonly log: RetentionLog;
  private readonly batchSize: number;

  constructor(private readonly options: RetentionWorkerOptions) {
    this.instanceId =
      options.instanceId ?? `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    this.log = options.log ?? silentLog;
    this.batchSize = options.batchSize ?? BATCH_SIZE;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopped = false;
    this.schedule(this.options.firstPassMs ?? Math.min(FIRST_PASS_MS, this.options.intervalMs));
  }

  /** Stops scheduling; a pass under way ends after its current batch. */
  async stop(): Promise<void> {
    this.running = false;
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    await this.passing?.catch(() => {});
  }

  /** Runs a pass now (unless one is under way on this instance: then its outcome). */
  wake(): void {
    void this.pass().catch(() => {});
  }

  /**
   * One pass over every rule. Resolves `{ran: false}` when another instance holds the lock. Errors are
   * logged and rethrown; the next scheduled pass tries again.
   */
  pass(): Promise<RetentionPass> {
    this.passing ??= this.runPass()
      .catch((error: unknown) => {
        this.log.error({ err: error }, 'retention pass failed');
        throw error;
      })
      .finally(() => {
        this.passing = undefined;
      });
    return this.passing;
  }

  private schedule(ms: number): void {
    this.timer?.cancel();
    this.timer = this.running
      ? this.options.clock.setTimeout(() => {
          this.pass()
            .catch(() => {})
            .finally(() => this.schedule(this.options.intervalMs));
        }, ms)
      : undefined;
  }

  private async runPass(): Promise<RetentionPass> {
    const attempt = await this.options.db.tryWithAdvisoryLock(RETENTION_LOCK, async () => {
      const deleted: Record<string, number> = {};
      for (const active of this.options.rules) {
        if (this.stopped) break;
        if (active.ageMs === null) continue;
        deleted[active.rule.name] = await this.expire(active, active.ageMs);
      }
      return deleted;
    });
    if (!attempt.acquired) return { ran: false };
    const deleted = attempt.result;
    if (Object.values(deleted).some((n) => n > 0)) {
      this.log.info({ deleted, instance: this.instanceId }, 'retention pass deleted old rows');
    }
    return { ran: true, deleted };
  }

  /** Deletes one rule's rows older than `ageMs`, a batch per transaction, until a batch comes back short. */
  private async expire(active: ActiveRetention, ageMs: number): Promise<number> {
    const { rule } = active;
    const tenants = this.options.tenantIds;
    const conditions = [`${rule.timeColumn} < $1`];
    if (rule.where !== undefined) conditions.push(`(${rule.where})`);
    if (tenants !== undefined) conditions.push('tenant_id = any($3::text[])');
    const where = conditions.join(' and ');
    // `ctid = any(array(...))` deletes exactly the rows the limited select found (a tid scan, not a join
    // over the table); the conditions are checked again on a row updated meanwhile.
    const sql = `delete from ${rule.table}
      where ctid = any(array(select ctid from ${rule.table} where ${where} order by ${rule.timeColumn} limit $2))
        and ${where}`;
    let total = 0;
    for (;;) {
      const cutoff = new Date(this.options.clock.now() - ageMs).toISOString();
      const params: unknown[] = [cutoff, this.batchSize];
      if (tenants !== undefined) params.push(tenants);
      const { rowCount } = await systemTx(this.options.db, (tx) => tx.query(sql, params));
      total += rowCount;
      // Stopping: the rest waits for the next pass, on this instance or another.
      if (rowCount < this.batchSize || this.stopped) break;
    }
    return total;
  }
}
