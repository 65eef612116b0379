import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../core/context.ts';
import { idempotencyBinding } from '../../../core/http/idempotency.ts';
import {
  CancelBody,
  CaptureBody,
  ConfirmBody,
  CreatePaymentInput,
  ListPaymentsInput,
  Payment,
  PaymentPage,
  SimulateBody,
} from '../schema/payment.ts';
import { cancelPayment } from '../verbs/cancel-payment.ts';
import { capturePayment } from '../verbs/capture-payment.ts';
import { confirmPayment } from '../verbs/confirm-payment.ts';
import { createKeyedPayment } from '../verbs/create-payment.ts';
import { getPayment } from '../verbs/get-payment.ts';
import { listPayments } from '../verbs/list-payments.ts';
import { simulateWebhook } from '../verbs/simulate-webhook.ts';
import {
  created,
  keyedRoute,
  PaymentParams,
  paymentChange,
  read,
  route,
  typedRoutes,
  write,
} from './shared.ts';

/** Payments: create, list, read, and their changes (confirm, capture, cancel, the test provider's report). */
export async function paymentsRoutes(app: FastifyInstance, services: Services) {
  const { typed, ctx } = typedRoutes(app, services);

  typed.post(
    '/v1/payments',
    keyedRoute(
      write,
      'createPayment',
      'Create a payment intent',
      'the auction already has a payment, the tenant’s provider is stripe and it has no keys, Stripe refused the request',
      { body: CreatePaymentInput, response: { 201: Payment } },
    ),
    async (request, reply) => {
      const made = await createKeyedPayment(ctx(request), request.body, idempotencyBinding(request));
      return created(reply, made, made.payment);
    },
  );

  typed.get(
    '/v1/payments',
    route(
      read,
      'listPayments',
      'List payments, newest first; filter by status, customer (its Actor id), auctionId',
      { querystring: ListPaymentsInput, response: { 200: PaymentPage } },
    ),
    async (request) => listPayments(ctx(request), request.query),
  );

  typed.get(
    '/v1/payments/:paymentId',
    route(read, 'getPayment', 'Get a payment', { params: PaymentParams, response: { 200: Payment } }),
    async (request) => getPayment(ctx(request), request.params),
  );

  typed.post(
    '/v1/payments/:paymentId/confirm',
    paymentChange(
      'confirmPayment',
      'Confirm with a payment method, or complete the action a confirmation asked for',
      ConfirmBody,
    ),
    async (request) => confirmPayment(ctx(request), { ...request.body, ...request.params }),
  );

  typed.post(
    '/v1/payments/:paymentId/capture',
    paymentChange(
      'capturePayment',
      'Capture an authorized payment, in whole or in part (the rest is released)',
      Type.Optional(CaptureBody),
    ),
    async (request) => capturePayment(ctx(request), { ...(request.body ?? {}), ...request.params }),
  );

  typed.post(
    '/v1/payments/:paymentId/cancel',
    paymentChange('cancelPayment', 'Cancel a payment that has not succeeded', Type.Optional(CancelBody)),
    async (request) => cancelPayment(ctx(request), { ...(request.body ?? {}), ...request.params }),
  );

  typed.post(
    '/v1/payments/:paymentId/simulate',
    paymentChange(
      'simulatePaymentWebhook',
      'Test provider only: report the outcome of a processing payment, as its webhook would',
      SimulateBody,
    ),
    async (request) => simulateWebhook(ctx(request), { ...request.body, ...request.params }),
  );
}
