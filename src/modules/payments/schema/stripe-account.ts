import { Type } from 'typebox';
import { closedInput, dateTime, nullable, resource } from '../../../core/http/named-schemas.ts';
import { oneOf } from '../../../core/http/schemas.ts';

const WebhookUrl = Type.String({ description: 'Where Stripe sends this tenant’s events' });

export const StripeAccountBody = closedInput(
  'SetStripeAccountInput',
  'The tenant’s Stripe keys (stored encrypted, never answered)',
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
);
export const StripeAccount = resource(
  'StripeAccount',
  'The tenant’s Stripe keys as set: mode and last 4 characters',
  {
    provider: Type.Literal('stripe'),
    livemode: Type.Boolean(),
    secretKeyLast4: Type.String(),
    webhookUrl: WebhookUrl,
    updatedAt: dateTime(),
  },
);
export const StripeAccountStatus = resource(
  'StripeAccountStatus',
  'Whether the tenant’s Stripe keys are set; never a secret',
  {
    provider: Type.Literal('stripe'),
    configured: Type.Boolean({ description: 'Whether the tenant’s Stripe keys are set' }),
    mode: Type.Union([oneOf(['test', 'live'] as const), Type.Null()], {
      description: 'test or live, from the secret key’s prefix (sk_test_ / sk_live_); null when not set',
    }),
    livemode: nullable(Type.Boolean()),
    secretKeyLast4: nullable(Type.String(), {
      description: 'The secret key’s last 4 characters (the keys themselves are never answered)',
    }),
    updatedAt: nullable(dateTime(), {
      description: 'When the keys were set',
    }),
    webhookUrl: WebhookUrl,
  },
);
