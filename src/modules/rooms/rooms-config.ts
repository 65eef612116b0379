import type { Static } from 'typebox';
import type { ServiceContext } from '../../core/context.ts';
import { RoomsConfig } from './schema.ts';

/** The tenant's rooms configuration with defaults filled in. */
export async function roomsConfig(ctx: ServiceContext): Promise<Static<typeof RoomsConfig>> {
  return ctx.enablement.config<Static<typeof RoomsConfig>>(ctx.tenantId, 'rooms', RoomsConfig);
}
