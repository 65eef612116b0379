import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import type { AccountList, ListAccountsInput } from '../schema.ts';

/** Every account with postings, its balance (the sum of its postings) per currency. */
export async function listAccounts(
  ctx: ServiceContext,
  input: Static<typeof ListAccountsInput>,
): Promise<Static<typeof AccountList>> {
  const { rows } = await tenantRead<{ account: string; currency: string; balance: string; postings: string }>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select account, currency, sum(amount)::text as balance, count(*)::text as postings
       from ledger_postings
      where ($1::text is null or starts_with(account, $1)) and ($2::text is null or currency = $2)
      group by account, currency order by account, currency limit 1000`,
    [input.prefix ?? null, input.currency ?? null],
  );
  return {
    data: rows.map((r) => ({
      account: r.account,
      currency: r.currency,
      balance: Number(r.balance),
      postings: Number(r.postings),
    })),
  };
}
