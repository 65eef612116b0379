import type Stripe from 'stripe';

type StripeSdk = typeof import('stripe').default;
let sdk: Promise<StripeSdk> | undefined;

/**
 * Stripe's SDK, loaded on first use: most services never talk to Stripe, and loading it costs about as
 * much as the rest of start-up's imports together.
 */
function loadStripe(): Promise<StripeSdk> {
  sdk ??= import('stripe').then((m) => m.default);
  return sdk;
}

import { AppError } from '../../../core/http/errors.ts';
import type {
  CallOptions,
  PaymentProvider,
  ProviderEvent,
  ProviderOutcome,
  ProviderPayment,
  ProviderRefund,
} from './provider.ts';

export interface StripeConnection {
  secretKey: string;
  /** Stripe's API, or a local stand-in (`SVC_STRIPE_API_URL`). */
  apiUrl: string | undefined;
}

/** Stripe's PaymentIntent status, as ours. */
export function outcomeOf(intent: Stripe.PaymentIntent): ProviderOutcome | undefined {
  switch (intent.status) {
    case 'requires_action':
      return {
        status: 'requires_action',
        nextAction: { type: intent.next_action?.type ?? 'use_stripe_sdk' },
      };
    case 'processing':
      return { status: 'processing' };
    case 'requires_capture':
      return { status: 'requires_capture' };
    case 'succeeded':
      return { status: 'succeeded' };
    case 'canceled':
      return { status: 'canceled' };
    case 'requires_payment_method': {
      const error = intent.last_payment_error;
      if (error === null || error === undefined) return undefined;
      return {
        status: 'failed',
        code: error.code ?? 'payment_failed',
        declineCode: error.decline_code ?? null,
        message: error.message ?? 'The payment failed.',
      };
    }
    default:
      return undefined;
  }
}

/** The refund's status, as ours. */
function refundStatus(status: string | null): ProviderRefund['status'] {
  if (status === 'succeeded') return 'succeeded';
  if (status === 'failed' || status === 'canceled') return status;
  return 'pending';
}

function providerRef(payment: ProviderPayment): string {
  if (payment.providerRef === null) throw new Error(`payment ${payment.id} has no Stripe PaymentIntent`);
  return payment.providerRef;
}

/**
 * Stripe through its official SDK, with the tenant's secret key. Every call that changes something
 * carries an idempotency key derived from our ids (`svc-create-<pay>`, `svc-confirm-<pay>-<n>`,
 * `svc-refund-<re>`, ...), so calling again after a lost answer never makes a second PaymentIntent,
 * capture or refund: Stripe answers the first call's result again.
 */
export class StripeProvider implements PaymentProvider {
  readonly name = 'stripe' as const;
  readonly livemode: boolean;
  private readonly stripe: Stripe;

  /** The provider with the SDK loaded. */
  static async open(connection: StripeConnection): Promise<StripeProvider> {
    return new StripeProvider(connection, await loadStripe());
  }

  private constructor(
    connection: StripeConnection,
    private readonly sdk: StripeSdk,
  ) {
    this.livemode = connection.secretKey.includes('_live_');
    const url = connection.apiUrl === undefined ? undefined : new URL(connection.apiUrl);
    this.stripe = new sdk(connection.secretKey, {
      maxNetworkRetries: 1,
      timeout: 20_000,
      telemetry: false,
      ...(url === undefined
        ? {}
        : {
            host: url.hostname,
            port: url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port),
            protocol: url.protocol === 'https:' ? 'https' : 'http',
          }),
    });
  }

  async initiate(payment: ProviderPayment, options: CallOptions) {
    const intent = await this.call(() =>
      this.stripe.paymentIntents.create(
        {
          amount: payment.amount,
          currency: payment.currency.toLowerCase(),
          capture_method: payment.captureMethod,
          ...(payment.description === null ? {} : { description: payment.description }),
          metadata: { svc_payment_id: payment.id },
        },
        { idempotencyKey: options.idempotencyKey },
      ),
    );
    return { providerRef: intent.id };
  }

  async confirm(
    payment: ProviderPayment,
    paymentMethod: string,
    options: CallOptions,
  ): Promise<ProviderOutcome> {
    try {
      const intent = await this.stripe.paymentIntents.confirm(
        providerRef(payment),
        { payment_method: paymentMethod },
        { idempotencyKey: options.idempotencyKey },
      );
      return (
        outcomeOf(intent) ?? {
          status: 'failed',
          code: 'payment_failed',
          declineCode: null,
          message: 'No outcome.',
        }
      );
    } catch (error) {
      if (error instanceof this.sdk.errors.StripeCardError) {
        return {
          status: 'failed',
          code: error.code ?? 'card_declined',
          declineCode: error.decline_code ?? null,
          message: error.message,
        };
      }
      throw this.unavailable(error);
    }
  }

  async capture(payment: ProviderPayment, amount: number, options: CallOptions): Promise<void> {
    await this.call(() =>
      this.stripe.paymentIntents.capture(
        providerRef(payment),
        { amount_to_capture: amount },
        { idempotencyKey: options.idempotencyKey },
      ),
    );
  }

  async cancel(payment: ProviderPayment, options: CallOptions): Promise<void> {
    await this.call(() =>
      this.stripe.paymentIntents.cancel(providerRef(payment), {}, { idempotencyKey: options.idempotencyKey }),
    );
  }

  async refund(payment: ProviderPayment, refund: { id: string; amount: number; reason: string | null }) {
    const reason = refund.reason as Stripe.RefundCreateParams.Reason | null;
    const created = await this.call(() =>
      this.stripe.refunds.create(
        {
          payment_intent: providerRef(payment),
          amount: refund.amount,
          ...(reason === null ? {} : { reason }),
          metadata: { svc_refund_id: refund.id },
        },
        { idempotencyKey: `svc-refund-${refund.id}` },
      ),
    );
    return {
      status: refundStatus(created.status),
      providerRef: created.id,
      ...(created.failure_reason === undefined || created.failure_reason === null
        ? {}
        : { failureReason: created.failure_reason }),
    };
  }

  async status(payment: ProviderPayment): Promise<ProviderOutcome | undefined> {
    return outcomeOf(await this.call(() => this.stripe.paymentIntents.retrieve(providerRef(payment))));
  }

  /** A `payment_intent.*` event: the PaymentIntent's id and its status as ours; other events name no payment. */
  translateEvent(event: Stripe.Event): ProviderEvent {
    if (!event.type.startsWith('payment_intent.')) {
      return { eventId: event.id, type: event.type, providerRef: null, outcome: undefined };
    }
    const intent = event.data.object as Stripe.PaymentIntent;
    const outcome = outcomeOf(intent);
    return {
      eventId: event.id,
      type: event.type,
      providerRef: intent.id,
      outcome,
      ...(outcome?.status === 'succeeded' && intent.amount_received > 0
        ? { amountCaptured: intent.amount_received }
        : {}),
    };
  }

  /** Verifies a webhook's `Stripe-Signature` with the SDK (throws when forged or older than `toleranceSeconds`). */
  static async verifyEvent(
    rawBody: string,
    signature: string,
    secret: string,
    toleranceSeconds: number,
  ): Promise<Stripe.Event> {
    return (await loadStripe()).webhooks.constructEvent(rawBody, signature, secret, toleranceSeconds);
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  private unavailable(error: unknown): AppError {
    if (error instanceof this.sdk.errors.StripeInvalidRequestError) {
      return new AppError('conflict', `Stripe refused the request: ${error.message}`, { cause: error });
    }
    if (error instanceof this.sdk.errors.StripeAuthenticationError) {
      return new AppError('conflict', 'Stripe refused the tenant’s secret key; set it again', {
        cause: error,
      });
    }
    return new AppError('service_unavailable', 'Stripe did not answer; retry with the same Idempotency-Key', {
      cause: error,
    });
  }
}
