import { Type } from 'typebox';
import { closed, closedInput, dateTime, nullable, resource } from '../../../core/http/named-schemas.ts';
import { PAGE_QUERY, Page } from '../../../core/http/pagination.ts';
import { Currency, PaymentId } from './common.ts';

export const AccountName = Type.String({
  pattern: '^[a-z_]+(:[A-Za-z0-9_.:-]{1,256})?$',
  maxLength: 300,
  description: 'world, customer:<actor id>, seller:<id>:payable, platform:fees, platform:sales',
});
export const Account = resource('LedgerAccount', 'A ledger account’s balance in one currency', {
  account: Type.String(),
  currency: Currency,
  balance: Type.Integer({ description: 'Sum of the account’s postings, minor units' }),
  postings: Type.Integer({ minimum: 0 }),
});
export const AccountPage = Page(
  Account,
  'LedgerAccountPage',
  'A page of ledger accounts with their balances, by account name (byte order), then currency',
);
export const ListAccountsInput = Type.Object(
  {
    prefix: Type.Optional(Type.String({ maxLength: 300, pattern: '^[A-Za-z0-9_.:-]*$' })),
    currency: Type.Optional(Currency),
    ...PAGE_QUERY,
  },
  { additionalProperties: false },
);

export const Posting = resource(
  'LedgerPosting',
  'One line of a ledger transaction: an amount into or out of an account',
  {
    transactionId: Type.String(),
    account: Type.String(),
    amount: Type.Integer({ description: 'Positive: into the account; negative: out of it' }),
    currency: Currency,
    createdAt: dateTime(),
  },
);
export const PostingPage = Page(
  Posting,
  'LedgerPostingPage',
  'A page of an account’s postings, newest first',
);
export const ListPostingsInput = closed({ account: AccountName, ...PAGE_QUERY });

export const LedgerTransaction = resource(
  'LedgerTransaction',
  'A balanced ledger transaction (its postings sum to zero per currency)',
  {
    id: Type.String(),
    kind: Type.String({ description: 'capture, refund' }),
    paymentId: nullable(Type.String()),
    refundId: nullable(Type.String()),
    postings: Type.Array(Type.Object({ account: Type.String(), amount: Type.Integer(), currency: Currency })),
    createdAt: dateTime(),
  },
);
export const TransactionPage = Page(
  LedgerTransaction,
  'LedgerTransactionPage',
  'A page of ledger transactions with their postings, newest first',
);
export const ListTransactionsInput = closed({ paymentId: Type.Optional(PaymentId), ...PAGE_QUERY });

export const GetBalanceInput = closedInput(
  'GetBalanceActionInput',
  'The ledger account (and currency) whose balance to read',
  { account: AccountName, currency: Type.Optional(Currency) },
);
export const Balance = resource('LedgerBalance', 'A ledger account’s balance per currency', {
  account: Type.String(),
  balances: Type.Array(Type.Object({ currency: Currency, balance: Type.Integer() })),
});
export const LedgerCheck = resource(
  'LedgerCheck',
  'The proof of a tenant’s books: every transaction balances, every payment matches its postings',
  {
    ok: Type.Boolean(),
    transactions: Type.Integer({ minimum: 0 }),
    postings: Type.Integer({ minimum: 0 }),
    unbalancedTransactions: Type.Array(Type.String()),
    mismatchedAccounts: Type.Array(Type.String()),
  },
);
