import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import {
  encryptFor,
  STRIPE_SECRET_KEY,
  STRIPE_WEBHOOK_SECRET,
  stripeWebhookUrl,
} from '../providers/stripe-account.ts';
import type { StripeAccount, StripeAccountBody } from '../schema/stripe-account.ts';

/** Stores the tenant's Stripe keys, encrypted; answers where Stripe should send the tenant's events. */
export async function setStripeAccount(
  ctx: ServiceContext,
  input: Static<typeof StripeAccountBody>,
): Promise<Static<typeof StripeAccount>> {
  const now = new Date(ctx.clock.now()).toISOString();
  const livemode = input.secretKey.includes('_live_');
  await tenantRead(
    ctx.db,
    { tenantId: ctx.tenantId },
    `insert into payment_provider_accounts (tenant_id, provider, secret_key_encrypted, webhook_secret_encrypted,
                                            secret_key_last4, livemode, updated_at)
     values ($1, 'stripe', $2, $3, $4, $5, $6)
     on conflict (tenant_id, provider) do update
       set secret_key_encrypted = excluded.secret_key_encrypted,
           webhook_secret_encrypted = excluded.webhook_secret_encrypted,
           secret_key_last4 = excluded.secret_key_last4, livemode = excluded.livemode, updated_at = excluded.updated_at`,
    [
      ctx.tenantId,
      encryptFor(ctx.encryption, STRIPE_SECRET_KEY, ctx.tenantId, input.secretKey),
      encryptFor(ctx.encryption, STRIPE_WEBHOOK_SECRET, ctx.tenantId, input.webhookSecret),
      input.secretKey.slice(-4),
      livemode,
      now,
    ],
  );
  return {
    provider: 'stripe',
    livemode,
    secretKeyLast4: input.secretKey.slice(-4),
    webhookUrl: stripeWebhookUrl(ctx),
    updatedAt: now,
  };
}
