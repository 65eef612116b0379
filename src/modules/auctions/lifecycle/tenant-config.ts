import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { AuctionsConfig } from '../schema/config.ts';

export type AuctionSettings = Static<typeof AuctionsConfig>;

/** The tenant's auctions configuration with defaults filled in. */
export async function auctionsConfig(ctx: ServiceContext): Promise<AuctionSettings> {
  return ctx.enablement.config<AuctionSettings>(ctx.tenantId, 'auctions', AuctionsConfig);
}
