import { InvalidRequest } from '../../../core/http/errors.ts';
import type { PaymentProvider, ProviderEvent, ProviderOutcome, ProviderPayment } from './provider.ts';

/**
 * The test payment methods, like Stripe's test cards: each has one deterministic path. `requires_action`
 * completes when the payment is confirmed again; `processing` waits for a simulated provider webhook.
 */
export const TEST_PAYMENT_METHODS = {
  pm_card_visa: 'succeeds',
  pm_card_mastercard: 'succeeds',
  pm_card_chargeDeclined: 'declined: generic_decline',
  pm_card_chargeDeclinedInsufficientFunds: 'declined: insufficient_funds',
  pm_card_authenticationRequired: 'requires an action (3-D Secure); confirm again to complete it',
  pm_card_processing: 'stays processing until a simulated provider webhook reports the outcome',
} as const;
export type TestPaymentMethod = keyof typeof TEST_PAYMENT_METHODS;

export function isTestPaymentMethod(value: string): value is TestPaymentMethod {
  return Object.hasOwn(TEST_PAYMENT_METHODS, value);
}

const DECLINES: Partial<Record<TestPaymentMethod, string>> = {
  pm_card_chargeDeclined: 'generic_decline',
  pm_card_chargeDeclinedInsufficientFunds: 'insufficient_funds',
};

/** The outcome once authorized: held for capture (manual) or captured (automatic). */
function authorized(payment: ProviderPayment): ProviderOutcome {
  return { status: payment.captureMethod === 'manual' ? 'requires_capture' : 'succeeded' };
}

/** The built-in provider: no network, no money; test mode (`livemode: false`). */
export class TestProvider implements PaymentProvider {
  readonly name = 'test' as const;
  readonly livemode = false;

  async initiate(payment: ProviderPayment) {
    return { providerRef: `test_${payment.id}` };
  }

  async confirm(payment: ProviderPayment, paymentMethod: string): Promise<ProviderOutcome> {
    if (!isTestPaymentMethod(paymentMethod)) {
      throw new InvalidRequest(
        `unknown test payment method ${paymentMethod}; use one of ${Object.keys(TEST_PAYMENT_METHODS).join(', ')}`,
        [
          {
            field: '/body/paymentMethod',
            message: 'is not a test payment method',
            code: 'unknown_payment_method',
          },
        ],
      );
    }
    const decline = DECLINES[paymentMethod];
    if (decline !== undefined) {
      return {
        status: 'failed',
        code: 'card_declined',
        declineCode: decline,
        message:
          decline === 'insufficient_funds' ? 'Your card has insufficient funds.' : 'Your card was declined.',
      };
    }
    if (paymentMethod === 'pm_card_authenticationRequired' && payment.status !== 'requires_action') {
      return { status: 'requires_action', nextAction: { type: 'use_stripe_sdk' } };
    }
    if (paymentMethod === 'pm_card_processing') return { status: 'processing' };
    return authorized(payment);
  }

  async capture(): Promise<void> {}

  async cancel(): Promise<void> {}

  async refund(_payment: ProviderPayment, refund: { id: string }) {
    return { status: 'succeeded' as const, providerRef: `test_${refund.id}` };
  }

  async status(): Promise<ProviderOutcome | undefined> {
    return undefined;
  }

  /** A simulated webhook (`POST /v1/payments/:id/simulate`): the outcome of a processing payment. */
  translateEvent(event: TestWebhook): ProviderEvent {
    const { payment } = event;
    const outcome: ProviderOutcome =
      event.outcome === 'failed'
        ? {
            status: 'failed',
            code: 'payment_failed',
            declineCode: null,
            message: 'The payment failed at the provider.',
          }
        : authorized(payment);
    return { eventId: event.id, type: `payment.${event.outcome}`, providerRef: payment.providerRef, outcome };
  }
}

/** The test provider's webhook, as `POST /v1/payments/:id/simulate` makes it. */
export interface TestWebhook {
  id: string;
  payment: ProviderPayment;
  outcome: 'succeeded' | 'failed';
}
