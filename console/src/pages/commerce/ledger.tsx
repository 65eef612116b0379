import { query } from '../../lib/router.tsx';
import { Field, Page } from '../../lib/ui.tsx';
import { AccountPostings, Accounts, type LedgerQuery, Transactions, update } from './ledger-lists.tsx';

/** The ledger: accounts and balances (filtered by prefix), one account's postings, and transactions. */
export function LedgerPage() {
  const params = query.value;
  const q: LedgerQuery = {
    prefix: params.get('prefix') ?? '',
    account: params.get('account') ?? undefined,
    accounts: params.get('accounts') ?? undefined,
    postings: params.get('postings') ?? undefined,
    transactions: params.get('transactions') ?? undefined,
  };
  return (
    <Page title="Ledger">
      <section class="commerce-panel" aria-labelledby="ledger-accounts">
        <h2 id="ledger-accounts">Accounts</h2>
        <form
          class="commerce-filters"
          onSubmit={(event) => {
            event.preventDefault();
            const prefix = String(new FormData(event.currentTarget).get('prefix') ?? '').trim();
            update(q, { prefix, accounts: undefined });
          }}
        >
          <Field label="Account name starts with" id="ledger-prefix" hint="e.g. customer: or seller:">
            <input id="ledger-prefix" name="prefix" defaultValue={q.prefix} />
          </Field>
          <button type="submit" class="secondary">
            Filter
          </button>
        </form>
        <Accounts q={q} />
      </section>
      {q.account === undefined ? null : <AccountPostings q={q} account={q.account} />}
      <section class="commerce-panel" aria-labelledby="ledger-transactions">
        <h2 id="ledger-transactions">Transactions</h2>
        <Transactions q={q} />
      </section>
    </Page>
  );
}
