import type { ServiceContext } from '../../../core/context.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import { Conflict } from '../../../core/http/errors.ts';
import type { SecretEncryption } from '../../../core/secrets/encryption.ts';
import { type EncryptedColumn, secretContext } from '../../../core/secrets/stored-secrets.ts';
import { StripeProvider } from './stripe-provider.ts';

export const STRIPE_SECRET_KEY: EncryptedColumn = {
  table: 'payment_provider_accounts',
  column: 'secret_key_encrypted',
  rowKey: ['tenant_id', 'provider'],
};
export const STRIPE_WEBHOOK_SECRET: EncryptedColumn = {
  table: 'payment_provider_accounts',
  column: 'webhook_secret_encrypted',
  rowKey: ['tenant_id', 'provider'],
};

/** Where Stripe should send the tenant's events. */
export function stripeWebhookUrl(ctx: ServiceContext): string {
  return `${ctx.config.publicUrl}/v1/payments/webhooks/stripe/${ctx.tenantId}`;
}

export function encryptFor(
  encryption: SecretEncryption,
  column: EncryptedColumn,
  tenantId: string,
  value: string,
): string {
  return encryption.encrypt(value, secretContext(column, [tenantId, 'stripe']));
}

export interface StripeSecrets {
  secretKey: string;
  webhookSecret: string;
}

/** The tenant's Stripe keys, decrypted; undefined when none are set. */
export async function stripeSecrets(
  ctx: Pick<ServiceContext, 'db' | 'encryption'>,
  tenantId: string,
): Promise<StripeSecrets | undefined> {
  const { rows } = await tenantRead<{ secret_key_encrypted: string; webhook_secret_encrypted: string }>(
    ctx.db,
    { tenantId },
    `select secret_key_encrypted, webhook_secret_encrypted from payment_provider_accounts where provider = 'stripe'`,
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  return {
    secretKey: ctx.encryption.decrypt(
      row.secret_key_encrypted,
      secretContext(STRIPE_SECRET_KEY, [tenantId, 'stripe']),
    ),
    webhookSecret: ctx.encryption.decrypt(
      row.webhook_secret_encrypted,
      secretContext(STRIPE_WEBHOOK_SECRET, [tenantId, 'stripe']),
    ),
  };
}

/** The Stripe provider with the tenant's key; 409 until the tenant has set its keys. */
export async function stripeProviderFor(ctx: ServiceContext): Promise<StripeProvider> {
  const secrets = await stripeSecrets(ctx, ctx.tenantId);
  if (secrets === undefined) {
    throw new Conflict('the tenant has no Stripe keys: PUT /v1/payments/providers/stripe first');
  }
  return StripeProvider.open({ secretKey: secrets.secretKey, apiUrl: ctx.config.stripeApiUrl });
}
