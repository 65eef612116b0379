import { Type } from 'typebox';
import { oneOf } from '../../../core/http/schemas.ts';

const WebhookUrl = Type.String({ description: 'Where Stripe sends this tenant’s events' });

export const StripeAccountBody = Type.Object(
  {
    secretKey: Type.String({
      pattern: '^(sk|rk)_(test|live)_[A-Za-z0-9]{1,250}$',
      description: 'sk_test_... or sk_live_...',
    }),
    webhookSecret: Type.String({
      pattern: '^whsec_[A-Za-z0-9+/=]{1,250}$',
      description: 'whsec_... of the endpoint',
    }),
  },
  {
    title: 'SetStripeAccountInput',
    description: 'The tenant’s Stripe keys (stored encrypted, never answered)',
    additionalProperties: false,
  },
);
export const StripeAccount = Type.Object(
  {
    provider: Type.Literal('stripe'),
    livemode: Type.Boolean(),
    secretKeyLast4: Type.String(),
    webhookUrl: WebhookUrl,
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { title: 'StripeAccount', description: 'The tenant’s Stripe keys as set: mode and last 4 characters' },
);
export const StripeAccountStatus = Type.Object(
  {
    provider: Type.Literal('stripe'),
    configured: Type.Boolean({ description: 'Whether the tenant’s Stripe keys are set' }),
    mode: Type.Union([oneOf(['test', 'live'] as const), Type.Null()], {
      description: 'test or live, from the secret key’s prefix (sk_test_ / sk_live_); null when not set',
    }),
    livemode: Type.Union([Type.Boolean(), Type.Null()]),
    secretKeyLast4: Type.Union([Type.String(), Type.Null()], {
      description: 'The secret key’s last 4 characters (the keys themselves are never answered)',
    }),
    updatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the keys were set',
    }),
    webhookUrl: WebhookUrl,
  },
  { title: 'StripeAccountStatus', description: 'Whether the tenant’s Stripe keys are set; never a secret' },
);
