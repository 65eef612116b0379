import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { tenantTx } from '../../../core/db/tenant-tx.ts';
import type { LedgerCheck } from '../schema/ledger.ts';

/**
 * Proves the tenant's books, in one snapshot: every transaction's postings sum to zero per currency and
 * it has at least two; every payment's captured less refunded amount equals what its transactions moved
 * out of the paying account; and all balances together sum to zero per currency.
 */
export async function checkLedger(ctx: ServiceContext): Promise<Static<typeof LedgerCheck>> {
  return tenantTx(ctx.db, { tenantId: ctx.tenantId }, async (tx) => {
    const { rows: unbalanced } = await tx.query<{ id: string }>(
      `select t.id from ledger_transactions t
         left join ledger_postings p on p.transaction_id = t.id
        group by t.id
       having count(p.idx) < 2
           or exists (select 1 from ledger_postings q where q.transaction_id = t.id
                       group by q.currency having sum(q.amount) <> 0)
        order by t.id limit 100`,
    );
    const { rows: mismatched } = await tx.query<{ id: string }>(
      `select pay.id from payments pay
         left join actors c on c.id = pay.customer_actor_id
         left join ledger_transactions t on t.payment_id = pay.id
         left join ledger_postings p on p.transaction_id = t.id
               and p.account in ('world', 'customer:' || c.external_id)
        group by pay.id, pay.amount_captured, pay.amount_refunded
       having coalesce(-sum(p.amount), 0) <> pay.amount_captured
                - coalesce((select sum(r.amount) from payment_refunds r
                             where r.payment_id = pay.id and r.status = 'succeeded'), 0)
        order by pay.id limit 100`,
    );
    const { rows: totals } = await tx.query<{ currency: string; total: string }>(
      `select currency, sum(amount)::text as total from ledger_postings group by currency having sum(amount) <> 0`,
    );
    const { rows: counts } = await tx.query<{ transactions: string; postings: string }>(
      `select (select count(*) from ledger_transactions)::text as transactions,
              (select count(*) from ledger_postings)::text as postings`,
    );
    const mismatchedAccounts = [
      ...mismatched.map((r) => `payment ${r.id}`),
      ...totals.map((r) => `all accounts in ${r.currency} sum to ${r.total}`),
    ];
    return {
      ok: unbalanced.length === 0 && mismatchedAccounts.length === 0,
      transactions: Number(counts[0]?.transactions ?? 0),
      postings: Number(counts[0]?.postings ?? 0),
      unbalancedTransactions: unbalanced.map((r) => r.id),
      mismatchedAccounts,
    };
  });
}
