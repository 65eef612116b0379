import { ALL_WORKSPACES, defineAction, type ModuleManifest } from '../../core/modules/manifest.ts';
import { paymentsIds } from './ids.ts';
import { STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET } from './providers/stripe-account.ts';
import { paymentRoutes } from './routes/index.ts';
import { PaymentsConfig } from './schema/config.ts';
import { Balance, GetBalanceInput } from './schema/ledger.ts';
import { CreatePaymentInput, ListPaymentsInput, Payment, PaymentPage, PaymentRef } from './schema/payment.ts';
import { Refund, RefundInput } from './schema/refund.ts';
import { SettlementWorker, settlementOutbox } from './settlement.ts';
import { createPayment } from './verbs/create-payment.ts';
import { getBalance } from './verbs/get-balance.ts';
import { getPayment } from './verbs/get-payment.ts';
import { listPayments } from './verbs/list-payments.ts';
import { refundPayment } from './verbs/refund-payment.ts';

export const PAYMENT_EVENTS = [
  'payment.created',
  'payment.requires_action',
  'payment.processing',
  'payment.amount_capturable_updated',
  'payment.succeeded',
  'payment.failed',
  'payment.canceled',
  'refund.created',
  'refund.succeeded',
  'refund.failed',
] as const;

export const paymentsModule: ModuleManifest = {
  name: 'payments',
  title: 'Payments',
  description:
    'Payment intents over pluggable providers (test, Stripe), idempotent by key, refunds, a double-entry ledger, and auction settlement.',
  version: '1.0.0',
  scopes: ['payments:read', 'payments:write', 'payments:refund'],
  sessionScopes: ['payments:read'],
  eventTypes: PAYMENT_EVENTS,
  configSchema: PaymentsConfig,
  idPrefixes: paymentsIds.prefixes,
  routes: paymentRoutes,
  migrations: new URL('./migrations/', import.meta.url),
  encryptedColumns: [STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET],
  hooks: (host) => {
    const worker = new SettlementWorker(host);
    return { worker, outbox: settlementOutbox(() => host.workers.wake('payments')) };
  },
  actions: [
    defineAction({
      name: 'list_payments',
      title: 'List payments',
      description: 'Payments of the tenant, newest first, filtered by status, customer and auctionId.',
      input: ListPaymentsInput,
      output: PaymentPage,
      scope: 'payments:read',
      route: 'listPayments',
      credentials: ['api_key', 'session'],
      access: 'read',
      confirmation: 'never',
      workspaceTypes: ALL_WORKSPACES,
      run: listPayments,
    }),
    defineAction({
      name: 'get_payment',
      title: 'Get a payment',
      description: 'One payment by id: status, amounts captured and refunded, last error.',
      input: PaymentRef,
      output: Payment,
      scope: 'payments:read',
      route: 'getPayment',
      credentials: ['api_key', 'session'],
      access: 'read',
      confirmation: 'never',
      workspaceTypes: ALL_WORKSPACES,
      run: getPayment,
    }),
    defineAction({
      name: 'create_payment',
      title: 'Create a payment',
      description:
        'Create a payment intent: amount in integer minor units, currency (ISO 4217), captureMethod, customer, seller.',
      input: CreatePaymentInput,
      output: Payment,
      scope: 'payments:write',
      route: 'createPayment',
      credentials: ['api_key'],
      access: 'write',
      confirmation: 'never',
      workspaceTypes: ALL_WORKSPACES,
      run: createPayment,
    }),
    defineAction({
      name: 'refund_payment',
      title: 'Refund a payment',
      description:
        'Refund a succeeded payment in whole (default) or in part. Moves money: always confirmed by a human.',
      input: RefundInput,
      output: Refund,
      scope: 'payments:refund',
      route: 'refundPayment',
      credentials: ['api_key'],
      access: 'destructive',
      confirmation: 'always',
      workspaceTypes: ALL_WORKSPACES,
      run: refundPayment,
    }),
    defineAction({
      name: 'get_balance',
      title: 'Get a ledger balance',
      description: 'The balance of a ledger account (e.g. platform:fees, seller:<id>:payable) per currency.',
      input: GetBalanceInput,
      output: Balance,
      scope: 'payments:read',
      route: 'listLedgerAccounts',
      credentials: ['api_key'],
      access: 'read',
      confirmation: 'never',
      workspaceTypes: ALL_WORKSPACES,
      run: getBalance,
    }),
  ],
};
