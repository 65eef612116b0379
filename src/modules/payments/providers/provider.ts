/**
 * The seam every payment provider sits behind (as Medusa's payment providers): the verbs record the step
 * they are about to take, ask the provider with no transaction open (steps.ts), and write what it
 * answered. Amounts are integer minor units. Every call that changes something at the provider carries an
 * idempotency key derived from our ids, so calling again after a lost answer does it once.
 */

export interface CallOptions {
  idempotencyKey: string;
}

/** The payment as a provider sees it. */
export interface ProviderPayment {
  id: string;
  amount: number;
  currency: string;
  captureMethod: 'automatic' | 'manual';
  customer: string | null;
  description: string | null;
  providerRef: string | null;
  paymentMethod: string | null;
  /** Our status before the call (`requires_action` when a confirmation completes an action). */
  status: string;
}

/** Where a confirmation (or a provider's report) leaves the payment. */
export type ProviderOutcome =
  | { status: 'requires_action'; nextAction: { type: string } }
  | { status: 'processing' }
  | { status: 'requires_capture' }
  | { status: 'succeeded' }
  | { status: 'failed'; code: string; declineCode: string | null; message: string }
  | { status: 'canceled' };

export interface ProviderRefund {
  /** `canceled`: the provider canceled it before it went through (Stripe: a refund awaiting the customer). */
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
  providerRef: string | null;
  failureReason?: string;
}

/** A provider webhook, translated: which payment (by the provider's id) and what happened to it. */
export interface ProviderEvent {
  eventId: string;
  type: string;
  /** The provider's id of the payment the event is about; null when it is about no payment. */
  providerRef: string | null;
  /** Where the payment now is; undefined when the event changes nothing we track. */
  outcome: ProviderOutcome | undefined;
  /** What the provider captured, when it reports `succeeded` (a partial capture: less than the amount). */
  amountCaptured?: number;
}

export interface PaymentProvider {
  readonly name: 'test' | 'stripe';
  readonly livemode: boolean;
  /** Registers the payment with the provider; answers the provider's id for it. */
  initiate(payment: ProviderPayment, options: CallOptions): Promise<{ providerRef: string | null }>;
  /** Confirms with a payment method (or completes the action it asked for). */
  confirm(payment: ProviderPayment, paymentMethod: string, options: CallOptions): Promise<ProviderOutcome>;
  /** Captures `amount` (<= the authorized amount); the rest is released. */
  capture(payment: ProviderPayment, amount: number, options: CallOptions): Promise<void>;
  cancel(payment: ProviderPayment, options: CallOptions): Promise<void>;
  /** The refund's idempotency key is derived from its id. */
  refund(
    payment: ProviderPayment,
    refund: { id: string; amount: number; reason: string | null },
  ): Promise<ProviderRefund>;
  /** The provider's current view of the payment. */
  status(payment: ProviderPayment): Promise<ProviderOutcome | undefined>;
  /**
   * Translates one of the provider's webhooks (its signature checked by the caller) into the status
   * change it reports; the caller applies it through the transition table, once per event id.
   */
  translateEvent(event: unknown): ProviderEvent;
}
