import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { validated } from '../../../core/modules/validate.ts';
import { ChatConfig } from '../schema.ts';

export type ChatSettings = Static<typeof ChatConfig>;

/** The tenant's chat configuration with defaults filled in. */
export async function chatConfig(ctx: ServiceContext): Promise<ChatSettings> {
  const states = await ctx.enablement.states(ctx.tenantId);
  return validated(ChatConfig, states.get('chat')?.config ?? {}, 'config');
}
