import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { isoTime } from '../../../core/db/database.ts';
import { listPage } from '../../../core/http/list-page.ts';
import type { ListTransactionsInput, TransactionPage } from '../schema/ledger.ts';

interface TransactionRow {
  seq: string | number;
  id: string;
  kind: string;
  payment_id: string | null;
  refund_id: string | null;
  postings: { account: string; amount: number | string; currency: string }[];
  created_at: string;
}

/** Ledger transactions with their postings, newest first. */
export function listTransactions(
  ctx: ServiceContext,
  input: Static<typeof ListTransactionsInput>,
): Promise<Static<typeof TransactionPage>> {
  return listPage(ctx, input, {
    select: `select t.seq, t.id, t.kind, t.payment_id, t.refund_id, ${isoTime('t.created_at')} as created_at,
                    (select jsonb_agg(jsonb_build_object('account', p.account, 'amount', p.amount, 'currency', p.currency)
                                      order by p.idx)
                       from ledger_postings p where p.transaction_id = t.id) as postings
               from ledger_transactions t`,
    orderBy: 't.seq',
    keyOf: (row) => row.seq,
    filters: (bind) => (input.paymentId === undefined ? [] : [`t.payment_id = ${bind(input.paymentId)}`]),
    view: (r: TransactionRow) => ({
      id: r.id,
      kind: r.kind,
      paymentId: r.payment_id,
      refundId: r.refund_id,
      postings: (r.postings ?? []).map((p) => ({
        account: p.account,
        amount: Number(p.amount),
        currency: p.currency,
      })),
      createdAt: r.created_at,
    }),
  });
}
