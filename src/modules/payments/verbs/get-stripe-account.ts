import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { isoTime } from '../../../core/db/database.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import { stripeWebhookUrl } from '../providers/stripe-account.ts';
import type { StripeAccountStatus } from '../schema/stripe-account.ts';

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
