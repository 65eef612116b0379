import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../core/context.ts';
import { requestContext } from '../../core/http/context.ts';
import { IdempotencyHeaders, idempotencyBinding, markReplayed } from '../../core/http/idempotency.ts';
import { errorRef } from '../../core/http/schemas.ts';
import {
  AccountList,
  AccountName,
  CancelBody,
  CaptureBody,
  ConfirmBody,
  CreatePaymentInput,
  LedgerCheck,
  ListAccountsInput,
  ListPaymentsInput,
  ListTransactionsInput,
  Payment,
  PaymentId,
  PaymentPage,
  PostingPage,
  Refund,
  RefundBody,
  RefundPage,
  SimulateBody,
  StripeAccount,
  StripeAccountBody,
  StripeAccountStatus,
  TransactionPage,
} from './schema.ts';
import { stripeWebhookRoute } from './stripe-webhook-route.ts';
import { cancelPayment } from './verbs/cancel-payment.ts';
import { capturePayment } from './verbs/capture-payment.ts';
import { checkLedger } from './verbs/check-ledger.ts';
import { confirmPayment } from './verbs/confirm-payment.ts';
import { createKeyedPayment } from './verbs/create-payment.ts';
import { getPayment } from './verbs/get-payment.ts';
import { listAccounts } from './verbs/list-accounts.ts';
import { listPayments } from './verbs/list-payments.ts';
import { listPostings } from './verbs/list-postings.ts';
import { listRefunds } from './verbs/list-refunds.ts';
import { listTransactions } from './verbs/list-transactions.ts';
import { refundKeyed } from './verbs/refund-payment.ts';
import { setStripeAccount } from './verbs/set-stripe-account.ts';
import { simulateWebhook } from './verbs/simulate-webhook.ts';
import { deleteStripeAccount, getStripeAccount } from './verbs/stripe-keys.ts';

const read = {
  module: 'payments',
  auth: { credentials: ['api_key', 'session'] as const, scope: 'payments:read' },
};
const apiRead = { module: 'payments', auth: { credentials: ['api_key'] as const, scope: 'payments:read' } };
const write = {
  module: 'payments',
  idempotent: true,
  auth: { credentials: ['api_key'] as const, scope: 'payments:write' },
};
const refund = {
  module: 'payments',
  idempotent: true,
  auth: { credentials: ['api_key'] as const, scope: 'payments:refund' },
};
/** The tenant's Stripe keys: set, read (never a secret) and removed with an API key holding payments:write. */
const stripeKeys = {
  module: 'payments',
  auth: { credentials: ['api_key'] as const, scope: 'payments:write' },
};
const Params = Type.Object({ paymentId: PaymentId });
/** What every idempotent route may answer besides its own conflicts. */
const KEY_RUNNING = 'or a request with this Idempotency-Key is still running';
const KEY_REUSED =
  '`idempotency_conflict`: this Idempotency-Key was used with another request (method, path or body)';
const STATUS_409 = errorRef(
  `\`conflict\`: the payment’s status does not allow this (the message names it and what it needs), a provider call of this payment is still running, the provider refused the request, ${KEY_RUNNING}; ${KEY_REUSED}.`,
);
const IDEMPOTENCY_409 = errorRef(
  `\`conflict\`: the auction already has a payment, the tenant’s provider is stripe and it has no keys, Stripe refused the request, ${KEY_RUNNING}; ${KEY_REUSED}.`,
);
const REFUND_409 = errorRef(
  `\`conflict\`: the payment is not succeeded (the message names its status), the provider refused the refund, ${KEY_RUNNING}; ${KEY_REUSED}.`,
);

const tags = ['payments'];

export async function paymentRoutes(app: FastifyInstance, services: Services) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const ctx = (request: Parameters<typeof requestContext>[0]) => requestContext(request, services);

  typed.post(
    '/v1/payments',
    {
      config: write,
      schema: {
        operationId: 'createPayment',
        summary: 'Create a payment intent',
        tags,
        headers: IdempotencyHeaders,
        body: CreatePaymentInput,
        response: { 201: Payment, 409: IDEMPOTENCY_409 },
      },
    },
    async (request, reply) => {
      const created = await createKeyedPayment(ctx(request), request.body, idempotencyBinding(request));
      if (created.replayed) markReplayed(reply);
      reply.status(201);
      return created.payment;
    },
  );

  typed.get(
    '/v1/payments',
    {
      config: read,
      schema: {
        operationId: 'listPayments',
        summary: 'List payments, newest first; filter by status, customer, auctionId',
        tags,
        querystring: ListPaymentsInput,
        response: { 200: PaymentPage },
      },
    },
    async (request) => listPayments(ctx(request), request.query),
  );

  typed.get(
    '/v1/payments/:paymentId',
    {
      config: read,
      schema: {
        operationId: 'getPayment',
        summary: 'Get a payment',
        tags,
        params: Params,
        response: { 200: Payment },
      },
    },
    async (request) => getPayment(ctx(request), request.params),
  );

  typed.post(
    '/v1/payments/:paymentId/confirm',
    {
      config: write,
      schema: {
        operationId: 'confirmPayment',
        summary: 'Confirm with a payment method, or complete the action a confirmation asked for',
        tags,
        headers: IdempotencyHeaders,
        params: Params,
        body: ConfirmBody,
        response: { 200: Payment, 409: STATUS_409 },
      },
    },
    async (request) => confirmPayment(ctx(request), { ...request.body, ...request.params }),
  );

  typed.post(
    '/v1/payments/:paymentId/capture',
    {
      config: write,
      schema: {
        operationId: 'capturePayment',
        summary: 'Capture an authorized payment, in whole or in part (the rest is released)',
        tags,
        headers: IdempotencyHeaders,
        params: Params,
        body: Type.Optional(CaptureBody),
        response: { 200: Payment, 409: STATUS_409 },
      },
    },
    async (request) => capturePayment(ctx(request), { ...(request.body ?? {}), ...request.params }),
  );

  typed.post(
    '/v1/payments/:paymentId/cancel',
    {
      config: write,
      schema: {
        operationId: 'cancelPayment',
        summary: 'Cancel a payment that has not succeeded',
        tags,
        headers: IdempotencyHeaders,
        params: Params,
        body: Type.Optional(CancelBody),
        response: { 200: Payment, 409: STATUS_409 },
      },
    },
    async (request) => cancelPayment(ctx(request), { ...(request.body ?? {}), ...request.params }),
  );

  typed.post(
    '/v1/payments/:paymentId/simulate',
    {
      config: write,
      schema: {
        operationId: 'simulatePaymentWebhook',
        summary: 'Test provider only: report the outcome of a processing payment, as its webhook would',
        tags,
        headers: IdempotencyHeaders,
        params: Params,
        body: SimulateBody,
        response: { 200: Payment, 409: STATUS_409 },
      },
    },
    async (request) => simulateWebhook(ctx(request), { ...request.body, ...request.params }),
  );

  typed.post(
    '/v1/payments/:paymentId/refunds',
    {
      config: refund,
      schema: {
        operationId: 'refundPayment',
        summary: 'Refund a succeeded payment, in whole (default) or in part',
        tags,
        headers: IdempotencyHeaders,
        params: Params,
        body: Type.Optional(RefundBody),
        response: {
          201: Refund,
          400: errorRef('Malformed, or more than is left to refund (`details[0].code` `amount_too_large`).'),
          409: REFUND_409,
        },
      },
    },
    async (request, reply) => {
      const input = { ...(request.body ?? {}), ...request.params };
      const created = await refundKeyed(ctx(request), input, idempotencyBinding(request));
      if (created.replayed) markReplayed(reply);
      reply.status(201);
      return created.refund;
    },
  );

  typed.get(
    '/v1/payments/:paymentId/refunds',
    {
      config: read,
      schema: {
        operationId: 'listRefunds',
        summary: 'A payment’s refunds, oldest first',
        tags,
        params: Params,
        response: { 200: RefundPage },
      },
    },
    async (request) => listRefunds(ctx(request), request.params),
  );

  typed.put(
    '/v1/payments/providers/stripe',
    {
      config: stripeKeys,
      schema: {
        operationId: 'setStripeAccount',
        summary:
          'Set the tenant’s Stripe keys (stored encrypted); then set the module config provider to stripe',
        tags,
        body: StripeAccountBody,
        response: { 200: StripeAccount },
      },
    },
    async (request) => setStripeAccount(ctx(request), request.body),
  );

  typed.get(
    '/v1/payments/providers/stripe',
    {
      config: stripeKeys,
      schema: {
        operationId: 'getStripeAccount',
        summary:
          'Whether the tenant’s Stripe keys are set: mode (test or live), last 4 characters, when set; never a secret',
        tags,
        response: { 200: StripeAccountStatus },
      },
    },
    async (request) => getStripeAccount(ctx(request)),
  );

  typed.delete(
    '/v1/payments/providers/stripe',
    {
      config: stripeKeys,
      schema: {
        operationId: 'deleteStripeAccount',
        summary: 'Remove the tenant’s Stripe keys; Stripe payments then answer 409 until keys are set again',
        tags,
        response: { 204: Type.Null({ description: 'Removed (or none were set)' }) },
      },
    },
    async (request, reply) => {
      await deleteStripeAccount(ctx(request));
      return reply.code(204).send(null);
    },
  );

  typed.get(
    '/v1/ledger/accounts',
    {
      config: apiRead,
      schema: {
        operationId: 'listLedgerAccounts',
        summary: 'Ledger accounts with their balances per currency',
        tags: ['payments', 'ledger'],
        querystring: ListAccountsInput,
        response: { 200: AccountList },
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
        tags: ['payments', 'ledger'],
        params: Type.Object({ account: AccountName }),
        querystring: Type.Object(
          {
            cursor: Type.Optional(Type.String({ maxLength: 500 })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
          },
          { additionalProperties: false },
        ),
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
        tags: ['payments', 'ledger'],
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
        tags: ['payments', 'ledger'],
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

  await app.register(async (scope) => stripeWebhookRoute(scope, services));
}
