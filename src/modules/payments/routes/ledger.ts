import type { FastifyInstance, FastifySchema } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../core/context.ts';
import { requestContext } from '../../../core/http/context.ts';
import { PageQuery } from '../../../core/http/pagination.ts';
import { consoleRoute, TenantParams } from '../../../surfaces/console/route-options.ts';
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
import { apiKeysWith, route, typedRoutes } from './shared.ts';

/** The books name every customer and seller: API keys only. */
const apiRead = apiKeysWith('payments:read', { idempotent: false });
const tags = ['payments', 'ledger'];
/** A ledger read: API keys with payments:read, tagged `ledger` too. */
const ledgerRead = <S extends FastifySchema>(operationId: string, summary: string, schema: S) =>
  route(apiRead, operationId, summary, { tags, ...schema });

/** The ledger, read only: accounts with their balances, postings, transactions, and the proof of the books. */
export async function ledgerRoutes(app: FastifyInstance, services: Services) {
  const { typed, ctx } = typedRoutes(app, services);

  typed.get(
    '/v1/ledger/accounts',
    ledgerRead(
      'listLedgerAccounts',
      'Ledger accounts with their balances per currency, by account name then currency',
      { querystring: ListAccountsInput, response: { 200: AccountPage } },
    ),
    async (request) => listAccounts(ctx(request), request.query),
  );

  typed.get(
    '/v1/ledger/accounts/:account/postings',
    ledgerRead('listLedgerPostings', 'An account’s postings, newest first', {
      params: Type.Object({ account: AccountName }),
      querystring: PageQuery,
      response: { 200: PostingPage },
    }),
    async (request) => listPostings(ctx(request), { ...request.query, ...request.params }),
  );

  typed.get(
    '/v1/ledger/transactions',
    ledgerRead('listLedgerTransactions', 'Ledger transactions with their postings, newest first', {
      querystring: ListTransactionsInput,
      response: { 200: TransactionPage },
    }),
    async (request) => listTransactions(ctx(request), request.query),
  );

  typed.get(
    '/v1/ledger/check',
    ledgerRead(
      'checkLedger',
      'Prove the books: every transaction balances, every payment matches its postings',
      { response: { 200: LedgerCheck } },
    ),
    async (request) => checkLedger(ctx(request)),
  );

  typed.get(
    '/api/console/tenants/:tenantId/payments/ledger-check',
    // The console guard checks the caller's membership of :tenantId (any role may read the books).
    consoleRoute('viewer', {
      operationId: 'consoleCheckLedger',
      summary: 'Prove the tenant’s books (console): every transaction balances, every payment matches',
      params: TenantParams,
      response: { 200: LedgerCheck },
    }),
    async (request) => checkLedger(requestContext(request, services, 'console')),
  );
}
