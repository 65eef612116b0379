import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { isoTime } from '../../../core/db/database.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import type { StripeAccountStatus } from '../schema.ts';

/** Where Stripe should send the tenant's events. */
export function stripeWebhookUrl(ctx: ServiceContext): string {
  return `${ctx.config.publicUrl}/v1/payments/webhooks/stripe/${ctx.tenantId}`;
}

/**
 * Whether the tenant's Stripe keys are set, with their mode (`test` or `live`, from the key's prefix),
 * the secret key's last 4 characters and when they were set; never a secret.
 */
export async function getStripeAccount(ctx: ServiceContext): Promise<Static<typeof StripeAccountStatus>> {
  const { rows } = await tenantRead<{ secret_key_last4: string; livemode: boolean; updated_at: string }>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select secret_key_last4, livemode, ${isoTime('updated_at')} as updated_at
       from payment_provider_accounts where provider = 'stripe'`,
  );
  const row = rows[0];
  return {
    provider: 'stripe',
    configured: row !== undefined,
    mode: row === undefined ? null : row.livemode ? 'live' : 'test',
    livemode: row?.livemode ?? null,
    secretKeyLast4: row?.secret_key_last4 ?? null,
    updatedAt: row?.updated_at ?? null,
    webhookUrl: stripeWebhookUrl(ctx),
  };
}

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
