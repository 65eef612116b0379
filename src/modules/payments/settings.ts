import type { Static } from 'typebox';
import type { ServiceContext } from '../../core/context.ts';
import { PaymentsConfig } from './schema/config.ts';

export type PaymentSettings = Static<typeof PaymentsConfig>;

/** The tenant's payments configuration with defaults filled in. */
export async function paymentsConfig(ctx: ServiceContext): Promise<PaymentSettings> {
  return ctx.enablement.config<PaymentSettings>(ctx.tenantId, 'payments', PaymentsConfig);
}
