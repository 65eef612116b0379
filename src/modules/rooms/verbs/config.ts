import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { validated } from '../../../core/modules/validate.ts';
import { RoomsConfig } from '../schema.ts';

/** The tenant's rooms configuration with defaults filled in. */
export async function roomsConfig(ctx: ServiceContext): Promise<Static<typeof RoomsConfig>> {
  const states = await ctx.enablement.states(ctx.tenantId);
  return validated(RoomsConfig, states.get('rooms')?.config ?? {}, 'config');
}
