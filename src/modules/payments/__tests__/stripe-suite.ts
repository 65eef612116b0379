import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import Stripe from 'stripe';
import { bearer, type TestTenant } from '../../../../test/factories.ts';
import { call, type Response, type TestApp } from '../../../../test/helper.ts';
import { type AppSuiteOptions, appSuite, suiteFixture } from '../../../../test/support/suite.ts';
import { StripeFake } from './stripe-fake.ts';
import { configurePayments, PaymentsSuite } from './support.ts';

export interface StripeKeys {
  secretKey: string;
  webhookSecret: string;
}

/** The tenant pays through Stripe: its keys stored (answered), then its provider switched to stripe. */
export async function payThroughStripe(t: TestApp, tenant: TestTenant, keys: StripeKeys): Promise<Response> {
  const stored = await call(t.app, {
    method: 'PUT',
    url: '/v1/payments/providers/stripe',
    headers: bearer(tenant.apiKey),
    payload: keys,
  });
  assert.equal(stored.statusCode, 200, stored.body);
  await configurePayments(t, tenant, { provider: 'stripe' });
  return stored;
}

/** A Stripe event as Stripe posts it (`data.object` is the object it is about). */
export function stripeEvent(id: string, type: string, object: unknown): string {
  return JSON.stringify({ id, object: 'event', type, data: { object }, livemode: false, created: 1 });
}

export interface StripeSuiteOptions extends AppSuiteOptions {
  /** The first tenant's keys: it pays through Stripe from the start. Without them no tenant has keys. */
  keys?: StripeKeys;
}

/**
 * `paymentsSuite` whose app talks to a local Stripe (`fake`), started before the app is built and stopped
 * after it closed; with `keys`, the first tenant pays through it.
 */
export class StripeSuite extends PaymentsSuite {
  readonly fake: StripeFake;
  private readonly keys: StripeKeys | undefined;
  private readonly stored: () => Response | undefined;

  constructor(options: StripeSuiteOptions = {}) {
    const { keys, ...build } = options;
    const fake = new StripeFake();
    before(() => fake.start());
    // Read when the app is built, after the fake's `before` above has started it.
    const config = {
      ...build.config,
      get stripeApiUrl() {
        return fake.url;
      },
    };
    super(appSuite({ ...build, config }));
    after(() => fake.stop());
    this.fake = fake;
    this.keys = keys;
    this.stored = suiteFixture('the Stripe keys stored', async () =>
      keys === undefined ? undefined : payThroughStripe(this.t, this.tenant, keys),
    );
  }

  /** The answer to storing the first tenant's keys. */
  get storedKeys(): Response {
    const stored = this.stored();
    if (stored === undefined) throw new Error('this suite was given no Stripe keys');
    return stored;
  }

  /** The Stripe-Signature Stripe would send for `payload` (with the suite's webhook secret unless told). */
  signed(payload: string, options: { secret?: string; timestamp?: number } = {}): string {
    const secret = options.secret ?? this.keys?.webhookSecret;
    if (secret === undefined) throw new Error('this suite was given no Stripe keys');
    return Stripe.webhooks.generateTestHeaderString({
      payload,
      secret,
      ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
    });
  }

  /** Posts `payload` to a tenant's Stripe webhook (the first tenant's unless told), as Stripe does. */
  webhook(
    payload: string,
    signature: string | undefined,
    tenantId = this.tenant.tenantId,
  ): Promise<Response> {
    return call(this.t.app, {
      method: 'POST',
      url: `/v1/payments/webhooks/stripe/${tenantId}`,
      headers: {
        'content-type': 'application/json',
        ...(signature === undefined ? {} : { 'stripe-signature': signature }),
      },
      payload,
    });
  }

  /** Posts `payload` to the first tenant's Stripe webhook, properly signed. */
  deliver(payload: string): Promise<Response> {
    return this.webhook(payload, this.signed(payload));
  }
}

export function stripeSuite(options: StripeSuiteOptions = {}): StripeSuite {
  return new StripeSuite(options);
}
