import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import type { Balance, GetBalanceInput } from '../schema/ledger.ts';

/** One account's balance per currency (none: no postings yet). */
export async function getBalance(
  ctx: ServiceContext,
  input: Static<typeof GetBalanceInput>,
): Promise<Static<typeof Balance>> {
  const { rows } = await tenantRead<{ currency: string; balance: string }>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select currency, sum(amount)::text as balance from ledger_postings
      where account = $1 and ($2::text is null or currency = $2) group by currency order by currency`,
    [input.account, input.currency ?? null],
  );
  return {
    account: input.account,
    balances: rows.map((r) => ({ currency: r.currency, balance: Number(r.balance) })),
  };
}
