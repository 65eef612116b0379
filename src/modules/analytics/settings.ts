import type { Static } from 'typebox';
import type { ServiceContext } from '../../core/context.ts';
import { postgresStore } from './postgres-store.ts';
import { AnalyticsConfig } from './schema.ts';
import type { AnalyticsStore } from './store.ts';

/** The tenant's analytics configuration with defaults filled in (a verb's context, or a module host's parts). */
export async function analyticsConfig(
  ctx: Pick<ServiceContext, 'enablement' | 'tenantId'>,
): Promise<Static<typeof AnalyticsConfig>> {
  return ctx.enablement.config<Static<typeof AnalyticsConfig>>(ctx.tenantId, 'analytics', AnalyticsConfig);
}

/** Where events are kept: the service's database (see store.ts for the interface a columnar store fills). */
export const analyticsStore: AnalyticsStore = postgresStore;
