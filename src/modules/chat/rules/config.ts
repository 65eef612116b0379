import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { ChatConfig } from '../schema.ts';

export type ChatSettings = Static<typeof ChatConfig>;

/** The tenant's chat configuration with defaults filled in. */
export async function chatConfig(ctx: ServiceContext): Promise<ChatSettings> {
  return ctx.enablement.config<ChatSettings>(ctx.tenantId, 'chat', ChatConfig);
}
