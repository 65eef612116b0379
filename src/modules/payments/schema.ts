import { Type } from 'typebox';
import { oneOf } from '../../core/http/schemas.ts';
import { idPattern } from '../../core/ids.ts';

/** Amounts are integers in minor units (cents); above this they are refused. */
export const MAX_AMOUNT = 1_000_000_000_000;
export const MAX_PAGE = 100;

export const PAYMENT_STATUSES = [
  'requires_payment_method',
  'requires_confirmation',
  'requires_action',
  'processing',
  'requires_capture',
  'succeeded',
  'canceled',
] as const;
export const REFUND_STATUSES = ['pending', 'succeeded', 'failed', 'canceled'] as const;
export const PROVIDERS = ['test', 'stripe'] as const;
export const CAPTURE_METHODS = ['automatic', 'manual'] as const;

export const PaymentId = Type.String({ pattern: idPattern('payment'), description: 'pay_...' });
export const RefundId = Type.String({ pattern: idPattern('refund'), description: 're_...' });
export const TransactionId = Type.String({ pattern: idPattern('ledgerTransaction'), description: 'ltx_...' });

const PositiveMoney = Type.Integer({
  minimum: 1,
  maximum: MAX_AMOUNT,
  description: 'Integer amount in minor units of the currency (e.g. cents), at most 10^12',
});
export const Currency = Type.String({
  pattern: '^[A-Z]{3}$',
  description: 'ISO 4217 currency code, e.g. EUR',
});
/** An actor's external id, `<provider>:<external_id>`. */
export const CustomerRef = Type.String({
  pattern: '^[A-Za-z0-9_.-]{1,64}:[^\\s]{1,200}$',
  description: "The paying actor's id, <provider>:<external_id>",
});
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

export const LastError = Type.Object({
  code: Type.String({ description: 'card_declined, ...' }),
  declineCode: Type.Union([Type.String(), Type.Null()]),
  message: Type.String(),
});

export const NextAction = Type.Object({
  type: Type.String({ description: 'What the customer must do, e.g. use_stripe_sdk or redirect_to_url' }),
});

export const Payment = Type.Object({
  id: Type.String(),
  object: Type.Literal('payment'),
  amount: PositiveMoney,
  currency: Currency,
  captureMethod: oneOf(CAPTURE_METHODS),
  status: oneOf(PAYMENT_STATUSES),
  customer: Type.Union([Type.String(), Type.Null()]),
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
});

export const Refund = Type.Object({
  id: Type.String(),
  object: Type.Literal('refund'),
  paymentId: Type.String(),
  amount: PositiveMoney,
  currency: Currency,
  reason: Type.Union([Type.String(), Type.Null()]),
  status: oneOf(REFUND_STATUSES),
  providerRef: Type.Union([Type.String(), Type.Null()]),
  failureReason: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
});

export const CreatePaymentInput = Type.Object(
  {
    amount: PositiveMoney,
    currency: Currency,
    captureMethod: Type.Optional(oneOf(CAPTURE_METHODS, { description: 'Default automatic' })),
    customer: Type.Optional(CustomerRef),
    seller: Type.Optional(SellerRef),
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
    metadata: Type.Optional(Metadata),
    paymentMethod: Type.Optional(PaymentMethodRef),
  },
  { additionalProperties: false },
);

export const PaymentRef = Type.Object({ paymentId: PaymentId }, { additionalProperties: false });

export const ConfirmBody = Type.Object(
  { paymentMethod: Type.Optional(PaymentMethodRef) },
  { additionalProperties: false },
);
export const ConfirmInput = Type.Object(
  { paymentId: PaymentId, paymentMethod: Type.Optional(PaymentMethodRef) },
  { additionalProperties: false },
);
export const CaptureBody = Type.Object(
  {
    amountToCapture: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_AMOUNT,
        description: 'Default: the whole amount; the rest is released',
      }),
    ),
  },
  { additionalProperties: false },
);
export const CaptureInput = Type.Object(
  {
    paymentId: PaymentId,
    amountToCapture: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_AMOUNT })),
  },
  { additionalProperties: false },
);
export const CANCEL_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'] as const;
export const CancelBody = Type.Object(
  { reason: Type.Optional(oneOf(CANCEL_REASONS)) },
  { additionalProperties: false },
);
export const CancelInput = Type.Object(
  { paymentId: PaymentId, reason: Type.Optional(oneOf(CANCEL_REASONS)) },
  { additionalProperties: false },
);
export const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'] as const;
export const RefundBody = Type.Object(
  {
    amount: Type.Optional(PositiveMoney),
    reason: Type.Optional(oneOf(REFUND_REASONS)),
  },
  { additionalProperties: false },
);
export const RefundInput = Type.Object(
  {
    paymentId: PaymentId,
    amount: Type.Optional(PositiveMoney),
    reason: Type.Optional(oneOf(REFUND_REASONS)),
  },
  { additionalProperties: false },
);
export const StripeAccountBody = Type.Object(
  {
    secretKey: Type.String({
      pattern: '^(sk|rk)_(test|live)_[A-Za-z0-9]{1,250}$',
      description: 'sk_test_... or sk_live_...',
    }),
    webhookSecret: Type.String({
      pattern: '^whsec_[A-Za-z0-9+/=]{1,250}$',
      description: 'whsec_... of the endpoint',
    }),
  },
  { additionalProperties: false },
);
export const StripeAccount = Type.Object({
  provider: Type.Literal('stripe'),
  livemode: Type.Boolean(),
  secretKeyLast4: Type.String(),
  webhookUrl: Type.String({ description: 'Where Stripe sends this tenant’s events' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export const StripeAccountStatus = Type.Object({
  provider: Type.Literal('stripe'),
  configured: Type.Boolean({ description: 'Whether the tenant’s Stripe keys are set' }),
  mode: Type.Union([oneOf(['test', 'live'] as const), Type.Null()], {
    description: 'test or live, from the secret key’s prefix (sk_test_ / sk_live_); null when not set',
  }),
  livemode: Type.Union([Type.Boolean(), Type.Null()]),
  secretKeyLast4: Type.Union([Type.String(), Type.Null()], {
    description: 'The secret key’s last 4 characters (the keys themselves are never answered)',
  }),
  updatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the keys were set',
  }),
  webhookUrl: Type.String({ description: 'Where Stripe sends this tenant’s events' }),
});
export const SIMULATED_OUTCOMES = ['succeeded', 'failed'] as const;
export const SimulateBody = Type.Object(
  {
    outcome: oneOf(SIMULATED_OUTCOMES, {
      description: 'What the test provider reports for a processing payment',
    }),
  },
  { additionalProperties: false },
);

export const ListPaymentsInput = Type.Object(
  {
    status: Type.Optional(oneOf(PAYMENT_STATUSES)),
    customer: Type.Optional(CustomerRef),
    auctionId: Type.Optional(Type.String({ pattern: idPattern('auction') })),
    cursor: Type.Optional(Type.String({ maxLength: 500 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 50 })),
  },
  { additionalProperties: false },
);
export const PaymentPage = Type.Object({
  data: Type.Array(Payment),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
export const RefundPage = Type.Object({ data: Type.Array(Refund) });

export const AccountName = Type.String({
  pattern: '^[a-z_]+(:[A-Za-z0-9_.:-]{1,256})?$',
  maxLength: 300,
  description: 'world, customer:<actor>, seller:<id>:payable, platform:fees, platform:sales',
});
export const Account = Type.Object({
  account: Type.String(),
  currency: Currency,
  balance: Type.Integer({ description: 'Sum of the account’s postings, minor units' }),
  postings: Type.Integer({ minimum: 0 }),
});
export const Posting = Type.Object({
  transactionId: Type.String(),
  account: Type.String(),
  amount: Type.Integer({ description: 'Positive: into the account; negative: out of it' }),
  currency: Currency,
  createdAt: Type.String({ format: 'date-time' }),
});
export const LedgerTransaction = Type.Object({
  id: Type.String(),
  kind: Type.String({ description: 'capture, refund' }),
  paymentId: Type.Union([Type.String(), Type.Null()]),
  refundId: Type.Union([Type.String(), Type.Null()]),
  postings: Type.Array(Type.Object({ account: Type.String(), amount: Type.Integer(), currency: Currency })),
  createdAt: Type.String({ format: 'date-time' }),
});
const PageQuery = {
  cursor: Type.Optional(Type.String({ maxLength: 500 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 50 })),
};
export const ListAccountsInput = Type.Object(
  {
    prefix: Type.Optional(Type.String({ maxLength: 300, pattern: '^[A-Za-z0-9_.:-]*$' })),
    currency: Type.Optional(Currency),
  },
  { additionalProperties: false },
);
export const AccountList = Type.Object({ data: Type.Array(Account) });
export const ListPostingsInput = Type.Object(
  { account: AccountName, ...PageQuery },
  { additionalProperties: false },
);
export const PostingPage = Type.Object({
  data: Type.Array(Posting),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
export const ListTransactionsInput = Type.Object(
  { paymentId: Type.Optional(PaymentId), ...PageQuery },
  { additionalProperties: false },
);
export const TransactionPage = Type.Object({
  data: Type.Array(LedgerTransaction),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
export const GetBalanceInput = Type.Object(
  { account: AccountName, currency: Type.Optional(Currency) },
  { additionalProperties: false },
);
export const Balance = Type.Object({
  account: Type.String(),
  balances: Type.Array(Type.Object({ currency: Currency, balance: Type.Integer() })),
});
export const LedgerCheck = Type.Object({
  ok: Type.Boolean(),
  transactions: Type.Integer({ minimum: 0 }),
  postings: Type.Integer({ minimum: 0 }),
  unbalancedTransactions: Type.Array(Type.String()),
  mismatchedAccounts: Type.Array(Type.String()),
});

export const PaymentsConfig = Type.Object(
  {
    provider: Type.Unsafe<(typeof PROVIDERS)[number]>(
      Type.Union(
        PROVIDERS.map((p) => Type.Literal(p)),
        { default: 'test', description: 'Provider of new payments; stripe needs its keys set first' },
      ),
    ),
    feeBasisPoints: Type.Integer({
      minimum: 0,
      maximum: 10_000,
      default: 0,
      description: 'Platform fee, 1/100 %',
    }),
    feeFixed: Type.Integer({
      minimum: 0,
      maximum: MAX_AMOUNT,
      default: 0,
      description: 'Platform fee per capture, minor units',
    }),
    settleAuctions: Type.Boolean({
      default: true,
      description: 'Create a payment for the winner of a sold auction',
    }),
  },
  { additionalProperties: false },
);
