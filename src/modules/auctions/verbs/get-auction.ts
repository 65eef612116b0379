import type { Static } from 'typebox';
import { roomLimit } from '../../../core/auth/principal.ts';
import type { ServiceContext } from '../../../core/context.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import { NotFound } from '../../../core/http/errors.ts';
import { AUCTION_COLUMNS, type AuctionRow, type AuctionView, toAuction } from '../auction-row.ts';
import { auctionFor } from '../audience.ts';
import type { AuctionRef } from '../schema.ts';

/**
 * The auction's row, or 404. A session token limited to one room sees only that room's auctions (404 for
 * the others, as for another tenant's).
 */
export async function readAuction(ctx: ServiceContext, auctionId: string): Promise<AuctionRow> {
  const { rows } = await tenantRead<AuctionRow>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select ${AUCTION_COLUMNS} from auctions where id = $1`,
    [auctionId],
  );
  const row = rows[0];
  const onlyRoom = roomLimit(ctx.principal);
  if (row === undefined || (onlyRoom !== undefined && row.room_id !== onlyRoom))
    throw new NotFound('auction', auctionId);
  return row;
}

export async function getAuction(
  ctx: ServiceContext,
  input: Static<typeof AuctionRef>,
): Promise<AuctionView> {
  return auctionFor(ctx.principal, toAuction(await readAuction(ctx, input.auctionId), ctx.clock.now()));
}
