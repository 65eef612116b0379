import { Type } from 'typebox';
import { closedInput, dateTime, nullable, resource } from '../../../core/http/named-schemas.ts';
import { Page } from '../../../core/http/pagination.ts';
import { oneOf } from '../../../core/http/schemas.ts';
import { Currency, PaymentId, PositiveMoney, REFUND_STATUSES } from './common.ts';

export const Refund = resource('Refund', 'Money given back from a succeeded payment, in whole or in part', {
  id: Type.String(),
  object: Type.Literal('refund'),
  paymentId: Type.String(),
  amount: PositiveMoney,
  currency: Currency,
  reason: nullable(Type.String()),
  status: oneOf(REFUND_STATUSES),
  providerRef: nullable(Type.String()),
  failureReason: nullable(Type.String()),
  createdAt: dateTime(),
});

export const RefundPage = Page(Refund, 'RefundPage', 'A page of a payment’s refunds, oldest first');

export const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'] as const;
const refundFields = {
  amount: Type.Optional(PositiveMoney),
  reason: Type.Optional(oneOf(REFUND_REASONS)),
};
export const RefundBody = closedInput(
  'RefundPaymentInput',
  'How much to refund (default: what is left) and why',
  refundFields,
);
/** The refund verb's input (and the refund_payment action's): the payment's id with the route's body. */
export const RefundInput = closedInput(
  'RefundPaymentActionInput',
  'The payment to refund, how much (default: what is left) and why',
  { paymentId: PaymentId, ...refundFields },
);
