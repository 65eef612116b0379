import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../core/context.ts';
import { IdempotencyHeaders, idempotencyBinding, markReplayed } from '../../../core/http/idempotency.ts';
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
import { keyedConflicts, PaymentParams, paymentChange, read, tags, typedRoutes, write } from './shared.ts';

const CREATE_409 = keyedConflicts(
  'the auction already has a payment, the tenant’s provider is stripe and it has no keys, Stripe refused the request',
);

/** Payments: create, list, read, and their changes (confirm, capture, cancel, the test provider's report). */
export async function paymentsRoutes(app: FastifyInstance, services: Services) {
  const { typed, ctx } = typedRoutes(app, services);

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
        response: { 201: Payment, 409: CREATE_409 },
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
        summary: 'List payments, newest first; filter by status, customer (its Actor id), auctionId',
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
        params: PaymentParams,
        response: { 200: Payment },
      },
    },
    async (request) => getPayment(ctx(request), request.params),
  );

  typed.post(
    '/v1/payments/:paymentId/confirm',
    {
      config: write,
      schema: paymentChange(
        'confirmPayment',
        'Confirm with a payment method, or complete the action a confirmation asked for',
        ConfirmBody,
      ),
    },
    async (request) => confirmPayment(ctx(request), { ...request.body, ...request.params }),
  );

  typed.post(
    '/v1/payments/:paymentId/capture',
    {
      config: write,
      schema: paymentChange(
        'capturePayment',
        'Capture an authorized payment, in whole or in part (the rest is released)',
        Type.Optional(CaptureBody),
      ),
    },
    async (request) => capturePayment(ctx(request), { ...(request.body ?? {}), ...request.params }),
  );

  typed.post(
    '/v1/payments/:paymentId/cancel',
    {
      config: write,
      schema: paymentChange(
        'cancelPayment',
        'Cancel a payment that has not succeeded',
        Type.Optional(CancelBody),
      ),
    },
    async (request) => cancelPayment(ctx(request), { ...(request.body ?? {}), ...request.params }),
  );

  typed.post(
    '/v1/payments/:paymentId/simulate',
    {
      config: write,
      schema: paymentChange(
        'simulatePaymentWebhook',
        'Test provider only: report the outcome of a processing payment, as its webhook would',
        SimulateBody,
      ),
    },
    async (request) => simulateWebhook(ctx(request), { ...request.body, ...request.params }),
  );
}
