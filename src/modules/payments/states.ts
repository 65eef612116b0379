import { Conflict } from '../../core/http/errors.ts';
import type { PAYMENT_STATUSES } from './schema/common.ts';

export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/**
 * The one table of legal status changes, as Stripe's PaymentIntents: a payment method is attached
 * (`requires_confirmation`), confirmation goes to an action, to processing, or straight to the outcome; a
 * failure goes back to `requires_payment_method`; any non-terminal status may be canceled.
 */
export const TRANSITIONS: Readonly<Record<PaymentStatus, readonly PaymentStatus[]>> = {
  requires_payment_method: ['requires_confirmation', 'canceled'],
  requires_confirmation: [
    'requires_action',
    'processing',
    'requires_capture',
    'succeeded',
    'requires_payment_method',
    'canceled',
  ],
  requires_action: ['processing', 'requires_capture', 'succeeded', 'requires_payment_method', 'canceled'],
  processing: ['requires_capture', 'succeeded', 'requires_payment_method', 'canceled'],
  requires_capture: ['succeeded', 'canceled'],
  succeeded: [],
  canceled: [],
};

export const TERMINAL: readonly PaymentStatus[] = ['succeeded', 'canceled'];

/** What each operation needs the payment to be in. */
export const OPERATIONS = {
  confirm: ['requires_payment_method', 'requires_confirmation', 'requires_action'],
  capture: ['requires_capture'],
  cancel: [
    'requires_payment_method',
    'requires_confirmation',
    'requires_action',
    'processing',
    'requires_capture',
  ],
  refund: ['succeeded'],
  simulate: ['processing'],
} as const satisfies Record<string, readonly PaymentStatus[]>;
export type Operation = keyof typeof OPERATIONS;

export function canTransition(from: PaymentStatus, to: PaymentStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** The status after `from -> to`; 409 naming both when the table has no such change. */
export function transition(paymentId: string, from: PaymentStatus, to: PaymentStatus): PaymentStatus {
  if (!canTransition(from, to)) {
    throw new Conflict(`payment ${paymentId} is ${from}; it cannot become ${to}`);
  }
  return to;
}

/** 409 naming the payment's status and the statuses the operation needs. */
export function assertOperation(paymentId: string, status: PaymentStatus, operation: Operation): void {
  const allowed: readonly PaymentStatus[] = OPERATIONS[operation];
  if (!allowed.includes(status)) {
    throw new Conflict(
      `payment ${paymentId} is ${status}; ${operation} needs it to be ${allowed.join(' or ')}`,
    );
  }
}

/** The event that tells of a payment reaching a status (none for the steps in between). */
export function eventOfStatus(status: PaymentStatus, failed: boolean): string | undefined {
  if (failed) return 'payment.failed';
  switch (status) {
    case 'requires_action':
      return 'payment.requires_action';
    case 'processing':
      return 'payment.processing';
    case 'requires_capture':
      return 'payment.amount_capturable_updated';
    case 'succeeded':
      return 'payment.succeeded';
    case 'canceled':
      return 'payment.canceled';
    default:
      return undefined;
  }
}
