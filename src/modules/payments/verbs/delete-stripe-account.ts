import type { ServiceContext } from '../../../core/context.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';

/**
 * Removes the tenant's Stripe keys (both secrets). Stripe payments then answer 409 until keys are set
 * again; removing keys that are not set does nothing.
 */
export async function deleteStripeAccount(ctx: ServiceContext): Promise<void> {
  await tenantRead(
    ctx.db,
    { tenantId: ctx.tenantId },
    `delete from payment_provider_accounts where provider = 'stripe'`,
  );
}
