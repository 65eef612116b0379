import { Type } from 'typebox';
import { PAGE_QUERY, Page } from '../../../core/http/pagination.ts';
import { oneOf } from '../../../core/http/schemas.ts';
import { Actor } from '../../../core/tenancy/actors.ts';
import { auctionsIds } from '../../auctions/port.ts';
import {
  CAPTURE_METHODS,
  Currency,
  MAX_AMOUNT,
  PAYMENT_STATUSES,
  PaymentId,
  PositiveMoney,
  PROVIDERS,
} from './common.ts';

export const SellerRef = Type.String({
  pattern: '^[A-Za-z0-9_.:-]{1,128}$',
  description: 'Who is owed the price less the platform fee (ledger account seller:<id>:payable)',
});
export const PaymentMethodRef = Type.String({
  pattern: '^[A-Za-z0-9_]{1,128}$',
  description: 'A payment method reference: a test method (pm_card_visa, ...) or a Stripe pm_...',
});
const Metadata = Type.Object(
  {},
  {
    maxProperties: 50,
    propertyNames: { pattern: '^[A-Za-z0-9_.:-]{1,40}$' },
    additionalProperties: Type.String({ maxLength: 500 }),
    description: 'Up to 50 keys (<= 40 chars), string values (<= 500 chars)',
  },
);

export const LastError = Type.Object(
  {
    code: Type.String({ description: 'card_declined, ...' }),
    declineCode: Type.Union([Type.String(), Type.Null()]),
    message: Type.String(),
  },
  { title: 'PaymentLastError', description: 'Why the last confirmation of a payment failed' },
);

export const NextAction = Type.Object(
  { type: Type.String({ description: 'What the customer must do, e.g. use_stripe_sdk or redirect_to_url' }) },
  { title: 'PaymentNextAction', description: 'What a payment in requires_action waits for' },
);

export const Payment = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('payment'),
    amount: PositiveMoney,
    currency: Currency,
    captureMethod: oneOf(CAPTURE_METHODS),
    status: oneOf(PAYMENT_STATUSES),
    customer: Type.Union([Actor, Type.Null()], {
      description: 'The paying actor (ledger account customer:<actor id>); null: nobody named',
    }),
    seller: Type.Union([Type.String(), Type.Null()]),
    description: Type.Union([Type.String(), Type.Null()]),
    metadata: Type.Object({}, { additionalProperties: true }),
    auctionId: Type.Union([Type.String(), Type.Null()]),
    provider: oneOf(PROVIDERS),
    providerRef: Type.Union([Type.String(), Type.Null()], { description: 'The provider’s id, e.g. pi_...' }),
    paymentMethod: Type.Union([Type.String(), Type.Null()]),
    livemode: Type.Boolean(),
    amountCapturable: Type.Integer({ minimum: 0 }),
    amountCaptured: Type.Integer({ minimum: 0 }),
    amountRefunded: Type.Integer({ minimum: 0 }),
    applicationFee: Type.Integer({ minimum: 0, description: 'The platform fee taken at capture' }),
    lastError: Type.Union([LastError, Type.Null()]),
    nextAction: Type.Union([NextAction, Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  {
    title: 'Payment',
    description: 'A payment intent: an amount a customer pays through a provider, and where it stands',
  },
);

export const PaymentPage = Page(Payment, 'PaymentPage', 'A page of payments, newest first');

export const CreatePaymentInput = Type.Object(
  {
    amount: PositiveMoney,
    currency: Currency,
    captureMethod: Type.Optional(oneOf(CAPTURE_METHODS, { description: 'Default automatic' })),
    customer: Type.Optional(Actor),
    seller: Type.Optional(SellerRef),
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
    metadata: Type.Optional(Metadata),
    paymentMethod: Type.Optional(PaymentMethodRef),
  },
  {
    title: 'CreatePaymentInput',
    description:
      'A new payment: amount, currency, who is owed (seller) and who pays (customer: an Actor, created on first use; omitted with a session token, which pays as its own actor)',
    additionalProperties: false,
  },
);

export const PaymentRef = Type.Object(
  { paymentId: PaymentId },
  { title: 'PaymentRef', description: 'One payment, by id', additionalProperties: false },
);

const confirmFields = { paymentMethod: Type.Optional(PaymentMethodRef) };
export const ConfirmBody = Type.Object(confirmFields, {
  title: 'ConfirmPaymentInput',
  description: 'The payment method to confirm with (default: the one attached)',
  additionalProperties: false,
});

const captureFields = {
  amountToCapture: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_AMOUNT,
      description: 'Default: the whole amount; the rest is released',
    }),
  ),
};
export const CaptureBody = Type.Object(captureFields, {
  title: 'CapturePaymentInput',
  description: 'How much of an authorized payment to capture',
  additionalProperties: false,
});

export const CANCEL_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'] as const;
const cancelFields = { reason: Type.Optional(oneOf(CANCEL_REASONS)) };
export const CancelBody = Type.Object(cancelFields, {
  title: 'CancelPaymentInput',
  description: 'Why the payment is canceled',
  additionalProperties: false,
});

export const SIMULATED_OUTCOMES = ['succeeded', 'failed'] as const;
export const SimulateBody = Type.Object(
  {
    outcome: oneOf(SIMULATED_OUTCOMES, {
      description: 'What the test provider reports for a processing payment',
    }),
  },
  {
    title: 'SimulatePaymentInput',
    description: 'The outcome the test provider reports, as its webhook would',
    additionalProperties: false,
  },
);

/** What the change verbs take: the payment's id with the route's body. */
export const ConfirmInput = Type.Object(
  { paymentId: PaymentId, ...confirmFields },
  { additionalProperties: false },
);
export const CaptureInput = Type.Object(
  { paymentId: PaymentId, ...captureFields },
  { additionalProperties: false },
);
export const CancelInput = Type.Object(
  { paymentId: PaymentId, ...cancelFields },
  { additionalProperties: false },
);

export const ListPaymentsInput = Type.Object(
  {
    status: Type.Optional(oneOf(PAYMENT_STATUSES)),
    customer: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_.-]{1,64}:[^\\s]{1,200}$',
        description: 'Only this customer’s payments: the Actor’s id, <provider>:<external_id>',
      }),
    ),
    auctionId: Type.Optional(Type.String({ pattern: auctionsIds.idPattern('auction') })),
    ...PAGE_QUERY,
  },
  {
    title: 'ListPaymentsActionInput',
    description: 'Which payments to list: filters by status, customer and auction, and the page',
    additionalProperties: false,
  },
);
