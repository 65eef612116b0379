import type { Static } from 'typebox';
import { roomLimit } from '../../../core/auth/principal.ts';
import type { ServiceContext } from '../../../core/context.ts';
import { listPage } from '../../../core/http/list-page.ts';
import { AUCTION_COLUMNS, type AuctionRow, toAuction } from '../auction-row.ts';
import { auctionFor } from '../audience.ts';
import type { AuctionPage, ListAuctionsQuery } from '../schema/auction.ts';

/** Newest first, filtered by status, room and published; a room-limited session sees its room only. */
export async function listAuctions(
  ctx: ServiceContext,
  input: Static<typeof ListAuctionsQuery>,
): Promise<Static<typeof AuctionPage>> {
  const now = ctx.clock.now();
  return listPage(ctx, input, {
    select: `select ${AUCTION_COLUMNS} from auctions`,
    orderBy: 'list_seq',
    keyOf: (row: AuctionRow) => row.list_seq,
    view: (row) => auctionFor(ctx.principal, toAuction(row, now)),
    filters: (bind) => {
      const where: string[] = [];
      if (input.status !== undefined) where.push(`status = ${bind(input.status)}`);
      if (input.roomId !== undefined) where.push(`room_id = ${bind(input.roomId)}`);
      if (input.published !== undefined) where.push(`published = ${bind(input.published)}`);
      const onlyRoom = roomLimit(ctx.principal);
      if (onlyRoom !== undefined) where.push(`room_id = ${bind(onlyRoom)}`);
      return where;
    },
  });
}
