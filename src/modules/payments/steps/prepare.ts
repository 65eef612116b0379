import type { ServiceContext } from '../../../core/context.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import { NotFound } from '../../../core/http/errors.ts';
import { providerFor } from '../providers/index.ts';
import type { PaymentProvider } from '../providers/provider.ts';
import { type PaymentSettings, paymentsConfig } from '../settings.ts';

export interface Prepared {
  provider: PaymentProvider;
  settings: PaymentSettings;
}

/**
 * What a change of a payment needs besides its row, read before its transaction opens: the tenant's
 * settings and the payment's provider (with its keys). A payment's provider never changes, so reading it
 * first is safe; reading inside the transaction would hold a second connection (and on the embedded
 * database, with one connection, wait for itself).
 */
export async function prepare(ctx: ServiceContext, paymentId: string): Promise<Prepared> {
  const { rows } = await tenantRead<{ provider: 'test' | 'stripe' }>(
    ctx.db,
    { tenantId: ctx.tenantId },
    'select provider from payments where id = $1',
    [paymentId],
  );
  const row = rows[0];
  if (row === undefined) throw new NotFound('payment', paymentId);
  const [provider, settings] = await Promise.all([providerFor(ctx, row.provider), paymentsConfig(ctx)]);
  return { provider, settings };
}
