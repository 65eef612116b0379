import { Type } from 'typebox';
import { Page } from '../../../core/http/pagination.ts';
import { oneOf } from '../../../core/http/schemas.ts';
import { Currency, PaymentId, PositiveMoney, REFUND_STATUSES } from './common.ts';

export const Refund = Type.Object(
  {
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
  },
  { title: 'Refund', description: 'Money given back from a succeeded payment, in whole or in part' },
);

export const RefundPage = Page(Refund, 'RefundPage', 'A page of a payment’s refunds, oldest first');

export const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'] as const;
const refundFields = {
  amount: Type.Optional(PositiveMoney),
  reason: Type.Optional(oneOf(REFUND_REASONS)),
};
export const RefundBody = Type.Object(refundFields, {
  title: 'RefundPaymentInput',
  description: 'How much to refund (default: what is left) and why',
  additionalProperties: false,
});
/** The refund verb's input (and the refund_payment action's): the payment's id with the route's body. */
export const RefundInput = Type.Object(
  { paymentId: PaymentId, ...refundFields },
  {
    title: 'RefundPaymentActionInput',
    description: 'The payment to refund, how much (default: what is left) and why',
    additionalProperties: false,
  },
);
