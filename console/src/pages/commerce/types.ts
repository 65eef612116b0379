import type { components } from '@svc/client';

/** The API's shapes the commerce pages show (from the OpenAPI document, through the SDK). */
export type Payment = components['schemas']['Payment'];
export type PaymentStatus = Payment['status'];
export type Refund = components['schemas']['Refund'];
export type LedgerTransaction = components['schemas']['LedgerTransaction'];
export type Operator = components['schemas']['Operator'];
export type MobileBuild = components['schemas']['MobileBuild'];
export type Storefront = components['schemas']['Storefront'];
export type TenantEvent = components['schemas']['Event'];

/** Every payment status, in the order a payment goes through them. */
export const PAYMENT_STATUSES: readonly PaymentStatus[] = [
  'requires_payment_method',
  'requires_confirmation',
  'requires_action',
  'processing',
  'requires_capture',
  'succeeded',
  'canceled',
];

/** `requires_capture` -> `requires capture`: a status as people read it. */
export function statusLabel(status: string): string {
  return status.replaceAll('_', ' ');
}
