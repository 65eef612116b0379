import { Type } from 'typebox';
import { PAGE_QUERY, Page } from '../../../core/http/pagination.ts';
import { Currency, PaymentId } from './common.ts';

export const AccountName = Type.String({
  pattern: '^[a-z_]+(:[A-Za-z0-9_.:-]{1,256})?$',
  maxLength: 300,
  description: 'world, customer:<actor id>, seller:<id>:payable, platform:fees, platform:sales',
});
export const Account = Type.Object(
  {
    account: Type.String(),
    currency: Currency,
    balance: Type.Integer({ description: 'Sum of the account’s postings, minor units' }),
    postings: Type.Integer({ minimum: 0 }),
  },
  { title: 'LedgerAccount', description: 'A ledger account’s balance in one currency' },
);
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

export const Posting = Type.Object(
  {
    transactionId: Type.String(),
    account: Type.String(),
    amount: Type.Integer({ description: 'Positive: into the account; negative: out of it' }),
    currency: Currency,
    createdAt: Type.String({ format: 'date-time' }),
  },
  {
    title: 'LedgerPosting',
    description: 'One line of a ledger transaction: an amount into or out of an account',
  },
);
export const PostingPage = Page(
  Posting,
  'LedgerPostingPage',
  'A page of an account’s postings, newest first',
);
export const ListPostingsInput = Type.Object(
  { account: AccountName, ...PAGE_QUERY },
  { additionalProperties: false },
);

export const LedgerTransaction = Type.Object(
  {
    id: Type.String(),
    kind: Type.String({ description: 'capture, refund' }),
    paymentId: Type.Union([Type.String(), Type.Null()]),
    refundId: Type.Union([Type.String(), Type.Null()]),
    postings: Type.Array(Type.Object({ account: Type.String(), amount: Type.Integer(), currency: Currency })),
    createdAt: Type.String({ format: 'date-time' }),
  },
  {
    title: 'LedgerTransaction',
    description: 'A balanced ledger transaction (its postings sum to zero per currency)',
  },
);
export const TransactionPage = Page(
  LedgerTransaction,
  'LedgerTransactionPage',
  'A page of ledger transactions with their postings, newest first',
);
export const ListTransactionsInput = Type.Object(
  { paymentId: Type.Optional(PaymentId), ...PAGE_QUERY },
  { additionalProperties: false },
);

export const GetBalanceInput = Type.Object(
  { account: AccountName, currency: Type.Optional(Currency) },
  {
    title: 'GetBalanceActionInput',
    description: 'The ledger account (and currency) whose balance to read',
    additionalProperties: false,
  },
);
export const Balance = Type.Object(
  {
    account: Type.String(),
    balances: Type.Array(Type.Object({ currency: Currency, balance: Type.Integer() })),
  },
  { title: 'LedgerBalance', description: 'A ledger account’s balance per currency' },
);
export const LedgerCheck = Type.Object(
  {
    ok: Type.Boolean(),
    transactions: Type.Integer({ minimum: 0 }),
    postings: Type.Integer({ minimum: 0 }),
    unbalancedTransactions: Type.Array(Type.String()),
    mismatchedAccounts: Type.Array(Type.String()),
  },
  {
    title: 'LedgerCheck',
    description:
      'The proof of a tenant’s books: every transaction balances, every payment matches its postings',
  },
);
