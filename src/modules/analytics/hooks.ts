import type { TenantEvent } from '../../core/events/types.ts';
import { type ModuleHooks, type ModuleHost, systemContext } from '../../core/modules/hooks.ts';
import { platformEventRow } from './capture.ts';
import { storeEvents } from './ingest/store-events.ts';
import { AnalyticsMaintenance } from './maintenance.ts';
import { analyticsConfig } from './settings.ts';

/**
 * Records a committed tenant event as `$<type>` when the tenant turned capture on. Called once per event
 * by the instance that committed it; the event id is the messageId, so a repeated call records nothing.
 */
export async function capturePlatformEvent(host: ModuleHost, event: TenantEvent): Promise<boolean> {
  // Checked first: most tenants' events stop here, before a context is made for them (a hot auction's
  // bids are events: building one per event was ~1.5% of the service's CPU in bench:auctions).
  const states = await host.enablement.states(event.tenantId);
  if (states.get('analytics')?.enabled !== true) return false;
  const { capturePlatformEvents } = await analyticsConfig({
    enablement: host.enablement,
    tenantId: event.tenantId,
  });
  if (!capturePlatformEvents) return false;
  const ctx = systemContext(host, event.tenantId);
  const duplicates = await storeEvents(ctx, [platformEventRow(ctx, event)]);
  return duplicates.size === 0;
}

/** Per app: platform-event capture (a bus subscriber) and the partition and retention maintenance. */
export function analyticsHooks(host: ModuleHost): ModuleHooks {
  return {
    onEvent: (event, origin) => {
      if (origin !== 'here') return;
      capturePlatformEvent(host, event).catch((err: unknown) =>
        host.log.error({ err, eventId: event.id }, 'analytics: platform event not captured'),
      );
    },
    worker: new AnalyticsMaintenance(host, (tenantId) => systemContext(host, tenantId)),
  };
}
