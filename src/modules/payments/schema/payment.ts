import { Type } from 'typebox';
import { closed, closedInput, dateTime, nullable, resource } from '../../../core/http/named-schemas.ts';
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

export const LastError = resource('PaymentLastError', 'Why the last confirmation of a payment failed', {
  code: Type.String({ description: 'card_declined, ...' }),
  declineCode: nullable(Type.String()),
  message: Type.String(),
});

export const NextAction = resource('PaymentNextAction', 'What a payment in requires_action waits for', {
  type: Type.String({ description: 'What the customer must do, e.g. use_stripe_sdk or redirect_to_url' }),
});

export const Payment = resource(
  'Payment',
  'A payment intent: an amount a customer pays through a provider, and where it stands',
  {
    id: Type.String(),
    object: Type.Literal('payment'),
    amount: PositiveMoney,
    currency: Currency,
    captureMethod: oneOf(CAPTURE_METHODS),
    status: oneOf(PAYMENT_STATUSES),
    customer: nullable(Actor, {
      description: 'The paying actor (ledger account customer:<actor id>); null: nobody named',
    }),
    seller: nullable(Type.String()),
    description: nullable(Type.String()),
    metadata: Type.Object({}, { additionalProperties: true }),
    auctionId: nullable(Type.String()),
    provider: oneOf(PROVIDERS),
    providerRef: nullable(Type.String(), { description: 'The provider’s id, e.g. pi_...' }),
    paymentMethod: nullable(Type.String()),
    livemode: Type.Boolean(),
    amountCapturable: Type.Integer({ minimum: 0 }),
    amountCaptured: Type.Integer({ minimum: 0 }),
    amountRefunded: Type.Integer({ minimum: 0 }),
    applicationFee: Type.Integer({ minimum: 0, description: 'The platform fee taken at capture' }),
    lastError: nullable(LastError),
    nextAction: nullable(NextAction),
    createdAt: dateTime(),
    updatedAt: dateTime(),
  },
);

export const PaymentPage = Page(Payment, 'PaymentPage', 'A page of payments, newest first');

export const CreatePaymentInput = closedInput(
  'CreatePaymentInput',
  'A new payment: amount, currency, who is owed (seller) and who pays (customer: an Actor, created on first use; omitted with a session token, which pays as its own actor)',
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
);

export const PaymentRef = closedInput('PaymentRef', 'One payment, by id', { paymentId: PaymentId });

const confirmFields = { paymentMethod: Type.Optional(PaymentMethodRef) };
export const ConfirmBody = closedInput(
  'ConfirmPaymentInput',
  'The payment method to confirm with (default: the one attached)',
  confirmFields,
);

const captureFields = {
  amountToCapture: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_AMOUNT,
      description: 'Default: the whole amount; the rest is released',
    }),
  ),
};
export const CaptureBody = closedInput(
  'CapturePaymentInput',
  'How much of an authorized payment to capture',
  captureFields,
);

export const CANCEL_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'] as const;
const cancelFields = { reason: Type.Optional(oneOf(CANCEL_REASONS)) };
export const CancelBody = closedInput('CancelPaymentInput', 'Why the payment is canceled', cancelFields);

export const SIMULATED_OUTCOMES = ['succeeded', 'failed'] as const;
export const SimulateBody = closedInput(
  'SimulatePaymentInput',
  'The outcome the test provider reports, as its webhook would',
  {
    outcome: oneOf(SIMULATED_OUTCOMES, {
      description: 'What the test provider reports for a processing payment',
    }),
  },
);

/** What the change verbs take: the payment's id with the route's body. */
export const ConfirmInput = closed({ paymentId: PaymentId, ...confirmFields });
export const CaptureInput = closed({ paymentId: PaymentId, ...captureFields });
export const CancelInput = closed({ paymentId: PaymentId, ...cancelFields });

export const ListPaymentsInput = closedInput(
  'ListPaymentsActionInput',
  'Which payments to list: filters by status, customer and auction, and the page',
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
);
