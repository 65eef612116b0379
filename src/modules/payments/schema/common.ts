import { Type } from 'typebox';
import { idPattern } from '../ids.ts';

/** Amounts are integers in minor units (cents); above this they are refused. */
export const MAX_AMOUNT = 1_000_000_000_000;

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

export const PositiveMoney = Type.Integer({
  minimum: 1,
  maximum: MAX_AMOUNT,
  description: 'Integer amount in minor units of the currency (e.g. cents), at most 10^12',
});
export const Currency = Type.String({
  pattern: '^[A-Z]{3}$',
  description: 'ISO 4217 currency code, e.g. EUR',
});
