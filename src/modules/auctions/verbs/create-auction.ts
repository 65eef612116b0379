import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { assertRoomExists } from '../../rooms/port.ts';
import { AUCTION_COLUMNS, type AuctionRow, type AuctionView, toAuction } from '../auction-row.ts';
import { auctionFor } from '../audience.ts';
import { recordChanges } from '../changes.ts';
import { newId } from '../ids.ts';
import { auctionsConfig } from '../lifecycle/tenant-config.ts';
import { checkTerms } from '../lifecycle/terms.ts';
import type { CreateAuctionInput } from '../schema/auction.ts';

/** A new auction, in draft, in a room of the tenant; increments and soft close default to the config. */
export async function createAuction(
  ctx: ServiceContext,
  input: Static<typeof CreateAuctionInput>,
): Promise<AuctionView> {
  await assertRoomExists(ctx, input.roomId);
  const config = await auctionsConfig(ctx);
  const increments = input.increments ?? config.increments;
  checkTerms({
    currency: input.currency,
    startingPrice: input.startingPrice,
    reservePrice: input.reservePrice ?? null,
    buyNowPrice: input.buyNowPrice ?? null,
    increments,
  });
  const now = ctx.clock.now();
  const at = new Date(now).toISOString();
  const id = newId('auction', now);
  return inTenant(ctx, async (tx, _emit, emitEach) => {
    const { rows } = await tx.query<AuctionRow>(
      `insert into auctions (tenant_id, id, room_id, title, description, currency, starting_price, reserve_price,
         buy_now_price, increments, starts_at, duration_seconds, soft_close, sudden_death, published, metadata,
         seq, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, 1, $17, $17)
       returning ${AUCTION_COLUMNS}`,
      [
        ctx.tenantId,
        id,
        input.roomId,
        input.title,
        input.description ?? '',
        input.currency,
        input.startingPrice,
        input.reservePrice ?? null,
        input.buyNowPrice ?? null,
        JSON.stringify(increments),
        input.startsAt ?? null,
        input.durationSeconds,
        JSON.stringify(input.softClose ?? config.softClose),
        input.suddenDeath ?? false,
        input.published ?? false,
        JSON.stringify(input.metadata ?? {}),
        at,
      ],
    );
    const row = rows[0];
    if (row === undefined) throw new Error('auction insert returned nothing');
    const auction = toAuction(row, now);
    await recordChanges(tx, ctx.tenantId, emitEach, [
      { by: ctx, type: 'auction.created', data: { auctionId: id, roomId: input.roomId, seq: 1, auction } },
    ]);
    return auctionFor(ctx.principal, auction);
  });
}
