import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { isoTime } from '../../../core/db/database.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import { NotFound } from '../../../core/http/errors.ts';
import { listPage } from '../../../core/http/list-page.ts';
import type { ListPostingsInput, PostingPage } from '../schema/ledger.ts';

interface PostingRow {
  seq: string | number;
  transaction_id: string;
  account: string;
  amount: string | number;
  currency: string;
  created_at: string;
}

/** An account's postings, newest first; 404 for an account that has none (it does not exist yet). */
export async function listPostings(
  ctx: ServiceContext,
  input: Static<typeof ListPostingsInput>,
): Promise<Static<typeof PostingPage>> {
  const listed = await listPage(ctx, input, {
    select: `select seq, transaction_id, account, amount, currency, ${isoTime('created_at')} as created_at
               from ledger_postings p`,
    orderBy: 'p.seq',
    keyOf: (row) => row.seq,
    filters: (bind) => [`p.account = ${bind(input.account)}`],
    view: (r: PostingRow) => ({
      transactionId: r.transaction_id,
      account: r.account,
      amount: Number(r.amount),
      currency: r.currency,
      createdAt: r.created_at,
    }),
  });
  if (listed.data.length === 0 && input.cursor === undefined) {
    const { rows } = await tenantRead(
      ctx.db,
      { tenantId: ctx.tenantId },
      'select 1 from ledger_postings where account = $1 limit 1',
      [input.account],
    );
    if (rows.length === 0) throw new NotFound('ledger account', input.account);
  }
  return listed;
}
