import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { cursorNumber, decodeCursor, encodeCursor } from '../../../core/http/cursor.ts';
import { InvalidRequest } from '../../../core/http/errors.ts';
import { listPublishedAuctions, type PublicAuctionStatus } from '../../auctions/port.ts';
import { publicStorefront } from '../lookups/public-storefront.ts';
import { PUBLIC_STATUSES, type PublicAuctionPage, type PublicAuctionsQuery } from '../public-schema.ts';

/** How long an ended auction stays in the listing. */
const RECENTLY_ENDED_MS = 7 * 86_400_000;

function positionOf(cursor: string | undefined) {
  const value = decodeCursor(cursor);
  if (value === undefined) return undefined;
  const rank = cursorNumber(value.r);
  const key = value.k === undefined || !/^-?\d{1,16}$/.test(value.k) ? undefined : Number(value.k);
  if (rank === undefined || key === undefined || value.i === undefined) {
    throw new InvalidRequest('the cursor is not one this API issued', [
      {
        field: '/querystring/cursor',
        message: 'pass nextCursor from the previous page',
        code: 'invalid_cursor',
      },
    ]);
  }
  return { rank, key, id: value.i };
}

/** Published auctions of the key's storefront: live first, then scheduled, then recently ended. */
export async function listPublicAuctions(
  ctx: ServiceContext,
  input: Static<typeof PublicAuctionsQuery> & { origin: string | undefined },
): Promise<Static<typeof PublicAuctionPage>> {
  const { roomIds } = await publicStorefront(ctx, input.origin);
  const rooms =
    input.roomId === undefined
      ? roomIds
      : roomIds === undefined || roomIds.includes(input.roomId)
        ? [input.roomId]
        : [];
  if (rooms !== undefined && rooms.length === 0) return { data: [], nextCursor: null };
  const statuses: readonly PublicAuctionStatus[] =
    input.status === undefined ? PUBLIC_STATUSES : [input.status];
  const { items, next } = await listPublishedAuctions(ctx, {
    statuses,
    roomIds: rooms,
    endedSince: new Date(ctx.clock.now() - RECENTLY_ENDED_MS).toISOString(),
    limit: input.limit ?? 20,
    after: positionOf(input.cursor),
  });
  return {
    data: items,
    nextCursor:
      next === undefined ? null : encodeCursor({ r: String(next.rank), k: String(next.key), i: next.id }),
  };
}
