import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../core/context.ts';
import { requestContext } from '../../../core/http/context.ts';
import { PageQuery } from '../../../core/http/pagination.ts';
import {
  AccountName,
  AccountPage,
  LedgerCheck,
  ListAccountsInput,
  ListTransactionsInput,
  PostingPage,
  TransactionPage,
} from '../schema/ledger.ts';
import { checkLedger } from '../verbs/check-ledger.ts';
import { listAccounts } from '../verbs/list-accounts.ts';
import { listPostings } from '../verbs/list-postings.ts';
import { listTransactions } from '../verbs/list-transactions.ts';
import { typedRoutes } from './shared.ts';

/** The books name every customer and seller: API keys only. */
const apiRead = { module: 'payments', auth: { credentials: ['api_key'] as const, scope: 'payments:read' } };
const tags = ['payments', 'ledger'];

/** The ledger, read only: accounts with their balances, postings, transactions, and the proof of the books. */
export async function ledgerRoutes(app: FastifyInstance, services: Services) {
  const { typed, ctx } = typedRoutes(app, services);

  typed.get(
    '/v1/ledger/accounts',
    {
      config: apiRead,
      schema: {
        operationId: 'listLedgerAccounts',
        summary: 'Ledger accounts with their balances per currency, by account name then currency',
        tags,
        querystring: ListAccountsInput,
        response: { 200: AccountPage },
      },
    },
    async (request) => listAccounts(ctx(request), request.query),
  );

  typed.get(
    '/v1/ledger/accounts/:account/postings',
    {
      config: apiRead,
      schema: {
        operationId: 'listLedgerPostings',
        summary: 'An account’s postings, newest first',
        tags,
        params: Type.Object({ account: AccountName }),
        querystring: PageQuery,
        response: { 200: PostingPage },
      },
    },
    async (request) => listPostings(ctx(request), { ...request.query, ...request.params }),
  );

  typed.get(
    '/v1/ledger/transactions',
    {
      config: apiRead,
      schema: {
        operationId: 'listLedgerTransactions',
        summary: 'Ledger transactions with their postings, newest first',
        tags,
        querystring: ListTransactionsInput,
        response: { 200: TransactionPage },
      },
    },
    async (request) => listTransactions(ctx(request), request.query),
  );

  typed.get(
    '/v1/ledger/check',
    {
      config: apiRead,
      schema: {
        operationId: 'checkLedger',
        summary: 'Prove the books: every transaction balances, every payment matches its postings',
        tags,
        response: { 200: LedgerCheck },
      },
    },
    async (request) => checkLedger(ctx(request)),
  );

  typed.get(
    '/api/console/tenants/:tenantId/payments/ledger-check',
    {
      // The console guard checks the caller's membership of :tenantId (any role may read the books).
      config: { auth: { credentials: ['hosted_user'] as const }, minRole: 'viewer' as const },
      schema: {
        operationId: 'consoleCheckLedger',
        summary: 'Prove the tenant’s books (console): every transaction balances, every payment matches',
        tags: ['console'],
        params: Type.Object({ tenantId: Type.String({ pattern: '^ten_[0-9a-z]{26}$' }) }),
        response: { 200: LedgerCheck },
      },
    },
    async (request) => checkLedger(requestContext(request, services, 'console')),
  );
}
