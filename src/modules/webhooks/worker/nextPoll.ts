import type { Database } from '../../../core/db/database.ts';
import { systemTx } from '../../../core/db/tenant-tx.ts';

/**
 * The next moment after `after` when work may become claimable without a wake: the earliest retry due
 * or lease to expire (a crashed holder's row is taken over then). Rows already due but held back by a
 * concurrency cap are picked up when an attempt finishes (wake) or at the worker's longest sleep.
 */
export async function nextDueAfter(
  db: Database,
  after: number,
  tenantIds: readonly string[] | undefined,
): Promise<number | undefined> {
  const { rows } = await systemTx(db, (tx) =>
    tx.query<{ next_due: Date | null; next_lease: Date | null }>(
      `select (select min(next_attempt_at) from webhook_deliveries
                where state = 'pending' and next_attempt_at > $1
                  and ($2::text[] is null or tenant_id = any($2::text[]))) as next_due,
              (select min(lease_expires_at) from webhook_deliveries
                where lease_owner is not null and lease_expires_at > $1
                  and ($2::text[] is null or tenant_id = any($2::text[]))) as next_lease`,
      [new Date(after).toISOString(), tenantIds ?? null],
    ),
  );
  const times = [rows[0]?.next_due, rows[0]?.next_lease]
    .filter((value): value is Date => value !== null && value !== undefined)
    .map((value) => new Date(value).getTime());
  return times.length === 0 ? undefined : Math.min(...times);
}
