import { Type } from 'typebox';
import { closedInput } from '../../../core/http/named-schemas.ts';
import { MAX_AMOUNT, PROVIDERS } from './common.ts';

export const PaymentsConfig = closedInput(
  'PaymentsConfig',
  'A tenant’s payments settings: provider, platform fee, auction settlement',
  {
    provider: Type.Unsafe<(typeof PROVIDERS)[number]>(
      Type.Union(
        PROVIDERS.map((p) => Type.Literal(p)),
        { default: 'test', description: 'Provider of new payments; stripe needs its keys set first' },
      ),
    ),
    feeBasisPoints: Type.Integer({
      minimum: 0,
      maximum: 10_000,
      default: 0,
      description: 'Platform fee, 1/100 %',
    }),
    feeFixed: Type.Integer({
      minimum: 0,
      maximum: MAX_AMOUNT,
      default: 0,
      description: 'Platform fee per capture, minor units',
    }),
    settleAuctions: Type.Boolean({
      default: true,
      description: 'Create a payment for the winner of a sold auction',
    }),
  },
);
