import type { Database } from '../../../core/db/database.ts';
import { systemTx } from '../../../core/db/tenant-tx.ts';
import type { DeliveryState } from '../schema.ts';
import type { AfterCommit } from '../types.ts';
import type { OpenedCircuit } from './circuit.ts';
import { emitDeadLettered, type RecordOptions, type RecordResult, recordOutcome } from './record.ts';
import { type FinishedAttempt, type RowAfter, writeOutcomes } from './record-write.ts';
import { retryDelay } from './schedule.ts';

export type { FinishedAttempt } from './record-write.ts';

export type BatchRecordOptions = Omit<RecordOptions, 'now'>;

interface LockedRow {
  id: string;
  tenant_id: string;
  state: DeliveryState;
  lease_token: string | null;
  attempt_count: number;
  cycle_attempt_count: number;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error_class: string | null;
  delivered_at: Date | null;
  dead_lettered_at: Date | null;
}

const isoOrNull = (value: Date | null) => (value === null ? null : new Date(value).toISOString());

/**
 * `recordOutcome` for many finished attempts in one transaction: one locking select, then one statement
 * that inserts every attempt, updates every row and the endpoints' circuits, then the dead-letter events
 * (published after commit) — four round trips whatever the batch size. A batch without dead-lettering commits without waiting for the WAL flush: if the database
 * crashed right then, its deliveries would only be sent again. The decisions
 * are `recordOutcome`'s, taken row by row in order (a row met twice sees its first attempt's effect).
 */
export async function recordOutcomes(
  db: Database,
  finished: readonly FinishedAttempt[],
  options: BatchRecordOptions,
): Promise<RecordResult[]> {
  if (finished.length === 0) return [];
  const committed: AfterCommit[] = [];
  const opened: OpenedCircuit[] = [];
  const results = await systemTx(
    db,
    async (tx) => {
      const ids = [...new Set(finished.map((f) => f.claimed.id))].sort();
      const { rows } = await tx.query<LockedRow>(
        `select id, tenant_id, state, lease_token, attempt_count, cycle_attempt_count, next_attempt_at,
              last_status_code, last_error_class, delivered_at, dead_lettered_at
         from webhook_deliveries where id = any($1::text[]) order by id for update`,
        [ids],
      );
      const after = new Map<string, RowAfter>(
        rows.map((row) => [
          row.id,
          {
            tenantId: row.tenant_id,
            state: row.state,
            leaseToken: row.lease_token,
            attemptCount: row.attempt_count,
            cycleAttemptCount: row.cycle_attempt_count,
            nextAttemptAt: isoOrNull(row.next_attempt_at),
            lastStatusCode: row.last_status_code,
            lastErrorClass: row.last_error_class,
            deliveredAt: isoOrNull(row.delivered_at),
            deadLetteredAt: isoOrNull(row.dead_lettered_at),
            released: false,
          },
        ]),
      );

      const attempts: { f: FinishedAttempt; attempt: number }[] = [];
      const deadLettered: { f: FinishedAttempt; attempt: number }[] = [];
      const results = finished.map((f): RecordResult => {
        const row = after.get(f.claimed.id);
        if (row === undefined) return 'gone';
        const { claimed, outcome } = f;
        row.attemptCount += 1;
        attempts.push({ f, attempt: row.attemptCount });
        const now = new Date(f.now).toISOString();
        const ownsLease = row.leaseToken === claimed.leaseToken && row.state === 'pending';
        const moveOn = () => {
          row.lastStatusCode = outcome.statusCode;
          row.lastErrorClass = outcome.errorClass;
          row.leaseToken = null;
          row.released = true;
        };
        if (outcome.errorClass === null && row.state === 'pending') {
          moveOn();
          row.state = 'delivered';
          row.deliveredAt = now;
          row.nextAttemptAt = null;
          return 'delivered';
        }
        if (!ownsLease) return 'recorded_only';
        moveOn();
        // The receiver may or may not have seen it; the schedule is not charged, the row is free at once.
        if (outcome.errorClass === 'interrupted') return 'released';
        const failures = row.cycleAttemptCount + 1;
        row.cycleAttemptCount = failures;
        const delay = retryDelay(options.schedule, failures, options.random);
        if (delay !== undefined) {
          row.nextAttemptAt = new Date(f.now + delay).toISOString();
          return 'retry';
        }
        row.state = 'dead_lettered';
        row.deadLetteredAt = now;
        row.nextAttemptAt = null;
        deadLettered.push({ f, attempt: row.attemptCount });
        return 'dead_lettered';
      });

      opened.push(
        ...(await writeOutcomes(tx, {
          attempts,
          rows: [...after],
          circuits: options.circuit,
          finished,
          owner: options.owner,
        })),
      );

      // Last: each emit scopes the transaction to its tenant (RLS), which no system statement may follow.
      if (options.emit !== undefined) {
        for (const { f, attempt } of deadLettered) {
          committed.push(await emitDeadLettered(tx, options.emit, f.claimed, f.outcome, attempt));
        }
      }
      return results;
    },
    { relaxedDurability: true },
  );
  for (const publish of committed) publish();
  if (opened.length > 0) options.circuitOpened?.(opened);
  return results;
}

interface Queued {
  finished: FinishedAttempt;
  resolve: (result: RecordResult) => void;
  reject: (error: unknown) => void;
}

/**
 * Records finished attempts with group commit: one transaction at a time, carrying every attempt that
 * finished while the previous one was being written. Idle, a transaction carries one attempt and adds no
 * delay; busy, it carries many, so the database sees a handful of statements per batch instead of six per
 * delivery. A batch that fails is retried attempt by attempt, so one bad row cannot hold back the others.
 */
export class AttemptRecorder {
  private readonly queue: Queued[] = [];
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly db: Database,
    private readonly options: BatchRecordOptions,
    private readonly maxBatch = 256,
  ) {}

  record(finished: FinishedAttempt): Promise<RecordResult> {
    return new Promise<RecordResult>((resolve, reject) => {
      this.queue.push({ finished, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  /** Resolves once everything queued so far is written. */
  async idle(): Promise<void> {
    await this.flushing;
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        let results: RecordResult[] | undefined;
        try {
          results = await recordOutcomes(
            this.db,
            batch.map((q) => q.finished),
            this.options,
          );
        } catch {
          results = undefined;
        }
        if (results !== undefined) {
          for (const [i, q] of batch.entries()) q.resolve(results[i] ?? 'gone');
          continue;
        }
        for (const q of batch) {
          await recordOutcome(this.db, q.finished.claimed, q.finished.outcome, {
            ...this.options,
            now: q.finished.now,
          }).then(q.resolve, q.reject);
        }
      }
    } finally {
      this.flushing = undefined;
    }
  }
}
