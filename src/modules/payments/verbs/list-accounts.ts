import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { listPage } from '../../../core/http/list-page.ts';
import type { AccountPage, ListAccountsInput } from '../schema/ledger.ts';

interface AccountRow {
  account: string;
  currency: string;
  balance: string;
  postings: string;
  key: string;
}

/**
 * The accounts with postings, each with its balance (the sum of its postings) per currency, by account
 * name (byte order) then currency: one row per account and currency, paged by the pair (`<account>
 * <currency>`: a space sorts before every character an account name may hold).
 */
export function listAccounts(
  ctx: ServiceContext,
  input: Static<typeof ListAccountsInput>,
): Promise<Static<typeof AccountPage>> {
  return listPage(ctx, input, {
    select: `select account, currency, balance, postings, key
               from (select account, currency, sum(amount)::text as balance, count(*)::text as postings,
                            account || ' ' || currency as key
                       from ledger_postings group by account, currency) a`,
    orderBy: 'a.key',
    textKey: true,
    byteOrder: true,
    ascending: true,
    keyOf: (row) => row.key,
    filters: (bind) => [
      ...(input.prefix === undefined ? [] : [`starts_with(a.account, ${bind(input.prefix)})`]),
      ...(input.currency === undefined ? [] : [`a.currency = ${bind(input.currency)}`]),
    ],
    view: (r: AccountRow) => ({
      account: r.account,
      currency: r.currency,
      balance: Number(r.balance),
      postings: Number(r.postings),
    }),
  });
}
