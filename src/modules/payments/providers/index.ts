import type { ServiceContext } from '../../../core/context.ts';
import type { PaymentProvider } from './provider.ts';
import { stripeProviderFor } from './stripe-account.ts';
import { TestProvider } from './test-provider.ts';

const TEST = new TestProvider();

export function testProvider(): TestProvider {
  return TEST;
}

/** The provider a payment is with: built in (`test`), or Stripe with the tenant's own keys. */
export async function providerFor(ctx: ServiceContext, name: 'test' | 'stripe'): Promise<PaymentProvider> {
  if (name === 'test') return TEST;
  return stripeProviderFor(ctx);
}
