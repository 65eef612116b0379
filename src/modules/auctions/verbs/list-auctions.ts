import type { Static } from 'typebox';
import { roomLimit } from '../../../core/auth/principal.ts';
import type { ServiceContext } from '../../../core/context.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import { cursorNumber, decodeCursor, encodeCursor } from '../../../core/http/cursor.ts';
import { AUCTION_COLUMNS, type AuctionRow, toAuction } from '../auction-row.ts';
import type { AuctionPage, ListAuctionsInput } from '../schema.ts';

/** Newest first, filtered by status, room and published; a room-limited session sees its room only. */
export async function listAuctions(
  ctx: ServiceContext,
  input: Static<typeof ListAuctionsInput>,
): Promise<Static<typeof AuctionPage>> {
  const limit = input.limit ?? 50;
  const after = cursorNumber(decodeCursor(input.cursor)?.seq);
  const params: unknown[] = [limit + 1];
  const where: string[] = [];
  const bind = (value: unknown) => `$${params.push(value)}`;
  if (after !== undefined) where.push(`list_seq < ${bind(after)}::bigint`);
  if (input.status !== undefined) where.push(`status = ${bind(input.status)}`);
  if (input.roomId !== undefined) where.push(`room_id = ${bind(input.roomId)}`);
  if (input.published !== undefined) where.push(`published = ${bind(input.published)}`);
  const onlyRoom = roomLimit(ctx.principal);
  if (onlyRoom !== undefined) where.push(`room_id = ${bind(onlyRoom)}`);
  const { rows } = await tenantRead<AuctionRow>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select ${AUCTION_COLUMNS} from auctions
      ${where.length === 0 ? '' : `where ${where.join(' and ')}`}
      order by list_seq desc limit $1`,
    params,
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const now = ctx.clock.now();
  return {
    data: page.map((row) => toAuction(row, now)),
    nextCursor:
      rows.length > limit && last !== undefined ? encodeCursor({ seq: String(last.list_seq) }) : null,
  };
}
