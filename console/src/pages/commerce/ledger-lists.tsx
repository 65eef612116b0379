import { api } from '../../lib/api.ts';
import { Listing, Pager } from '../../lib/list.tsx';
import { useLoad } from '../../lib/load.ts';
import { formatMoney } from '../../lib/money.ts';
import { Link, setQuery, tenantPath } from '../../lib/router.tsx';
import { EmptyState, ErrorNotice, Loading, Table, Time } from '../../lib/ui.tsx';
import { Postings } from './payment-timeline.tsx';

const PAGE_SIZE = 25;

/** The page's query string: each list keeps its own cursor there, so paging one keeps the others. */
export interface LedgerQuery {
  prefix: string;
  account: string | undefined;
  accounts: string | undefined;
  postings: string | undefined;
  transactions: string | undefined;
}

/** Sets some of the query string's values, keeping the others. */
export function update(current: LedgerQuery, change: Partial<LedgerQuery>): void {
  const next = { ...current, ...change };
  setQuery({
    prefix: next.prefix,
    account: next.account,
    accounts: next.accounts,
    postings: next.postings,
    transactions: next.transactions,
  });
}

/** Next and first-page buttons of a list whose cursor is `list` in the query string. */
function ListPager(props: {
  label: string;
  q: LedgerQuery;
  list: 'accounts' | 'postings' | 'transactions';
  next: string | null;
}) {
  const { q, list } = props;
  return (
    <Pager
      class="commerce-pager"
      of={props.label}
      cursor={q[list]}
      next={props.next}
      go={(cursor) => update(q, { [list]: cursor })}
    />
  );
}

/** Accounts with their balances per currency, by name, filtered by a name prefix. */
export function Accounts(props: { q: LedgerQuery }) {
  const { q } = props;
  const accounts = useLoad(async () => {
    const { data } = await api.GET('/v1/ledger/accounts', {
      params: {
        query: {
          limit: PAGE_SIZE,
          ...(q.prefix === '' ? {} : { prefix: q.prefix }),
          ...(q.accounts === undefined ? {} : { cursor: q.accounts }),
        },
      },
    });
    return data;
  }, [q.prefix, q.accounts]);
  return (
    <Listing
      load={accounts}
      what="accounts"
      empty={
        <EmptyState
          title={
            q.prefix === '' ? 'The ledger has no accounts yet.' : `No account starts with "${q.prefix}".`
          }
        >
          <p>
            Accounts appear with their first posting: capture a payment (Payments) and its customer, seller
            and fee accounts show here.
          </p>
        </EmptyState>
      }
    >
      {(page) => (
        <>
          <Table
            caption="Accounts, by name, then currency"
            head={['Account', 'Currency', 'Balance', 'Postings']}
          >
            {page.data.map((account) => (
              <tr key={`${account.account} ${account.currency}`}>
                <td>
                  <button
                    type="button"
                    class="commerce-link"
                    aria-pressed={q.account === account.account}
                    onClick={() => update(q, { account: account.account, postings: undefined })}
                  >
                    {account.account}
                  </button>
                </td>
                <td>{account.currency}</td>
                <td>{formatMoney(account.balance, account.currency)}</td>
                <td>{account.postings}</td>
              </tr>
            ))}
          </Table>
          <ListPager label="accounts" q={q} list="accounts" next={page.nextCursor} />
        </>
      )}
    </Listing>
  );
}

/** One account's postings, newest first. */
export function AccountPostings(props: { q: LedgerQuery; account: string }) {
  const { q, account } = props;
  const postings = useLoad(async () => {
    const { data } = await api.GET('/v1/ledger/accounts/{account}/postings', {
      params: {
        path: { account },
        query: { limit: PAGE_SIZE, ...(q.postings === undefined ? {} : { cursor: q.postings }) },
      },
    });
    return data;
  }, [account, q.postings]);
  const page = postings.data.value;
  return (
    <section class="commerce-panel" aria-labelledby="ledger-postings">
      <h2 id="ledger-postings">
        Postings of <code>{account}</code>
      </h2>
      <p>
        <button
          type="button"
          class="secondary"
          onClick={() => update(q, { account: undefined, postings: undefined })}
        >
          Close postings
        </button>
      </p>
      {postings.error.value === undefined ? null : <ErrorNotice error={postings.error.value} />}
      {page === undefined ? (
        postings.loading.value ? (
          <Loading what="postings" />
        ) : null
      ) : (
        <>
          <Table
            caption={`Postings of ${account}, newest first`}
            hideCaption
            head={['Transaction', 'Amount', 'Created']}
          >
            {page.data.map((posting) => (
              <tr key={`${posting.transactionId} ${posting.amount}`}>
                <td>
                  <code>{posting.transactionId}</code>
                </td>
                <td>{formatMoney(posting.amount, posting.currency)}</td>
                <td>
                  <Time value={posting.createdAt} />
                </td>
              </tr>
            ))}
          </Table>
          <ListPager label="postings" q={q} list="postings" next={page.nextCursor} />
        </>
      )}
    </section>
  );
}

/** Every transaction with its postings, newest first, linked to its payment. */
export function Transactions(props: { q: LedgerQuery }) {
  const { q } = props;
  const transactions = useLoad(async () => {
    const { data } = await api.GET('/v1/ledger/transactions', {
      params: {
        query: { limit: PAGE_SIZE, ...(q.transactions === undefined ? {} : { cursor: q.transactions }) },
      },
    });
    return data;
  }, [q.transactions]);
  return (
    <Listing
      load={transactions}
      what="transactions"
      empty={
        <EmptyState title="No transactions yet.">
          <p>Each capture and each succeeded refund posts one.</p>
        </EmptyState>
      }
    >
      {(page) => (
        <>
          <Table
            caption="Transactions, newest first"
            head={['Transaction', 'Kind', 'Payment', 'Postings', 'Created']}
          >
            {page.data.map((transaction) => (
              <tr key={transaction.id}>
                <td>
                  <code>{transaction.id}</code>
                </td>
                <td>{transaction.kind}</td>
                <td>
                  {transaction.paymentId === null ? (
                    '—'
                  ) : (
                    <Link to={tenantPath(`payments/${encodeURIComponent(transaction.paymentId)}`)}>
                      {transaction.paymentId}
                    </Link>
                  )}
                </td>
                <td>
                  <Postings transaction={transaction} />
                </td>
                <td>
                  <Time value={transaction.createdAt} />
                </td>
              </tr>
            ))}
          </Table>
          <ListPager label="transactions" q={q} list="transactions" next={page.nextCursor} />
        </>
      )}
    </Listing>
  );
}
