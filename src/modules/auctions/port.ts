import type { ServiceContext } from '../../core/context.ts';
import { tenantRead } from '../../core/db/tenant-tx.ts';
import { AUCTION_COLUMNS, type AuctionRow, toAuction } from './auction-row.ts';

export { auctionsIds } from './ids.ts';

/**
 * The auctions module's port for the public surface (the storefront module): published auctions as anyone
 * may see them. Only what a shopper needs — never a bidder's identity, a leader's maximum or the reserve
 * amount (only whether it is met). No permission check: the caller's route was authorized already.
 */
export type PublicAuctionStatus = 'live' | 'scheduled' | 'ended';

export interface PublishedAuction {
  id: string;
  roomId: string;
  title: string;
  description: string;
  /** Image URLs from the auction's metadata (`image`, `images`), at most 20. */
  images: string[];
  status: PublicAuctionStatus;
  currency: string;
  startingPrice: number;
  currentPrice: number | null;
  minimumBid: number | null;
  buyNowPrice: number | null;
  buyNowAvailable: boolean;
  bidCount: number;
  hasReserve: boolean;
  reserveMet: boolean;
  startsAt: string | null;
  endsAt: string | null;
  endedAt: string | null;
  outcome: 'sold' | 'unsold' | 'bought_now' | null;
  finalPrice: number | null;
  updatedAt: string;
}

/** Where a page of the listing ends: its order is status rank, then the rank's time key, then id. */
export interface PublishedPosition {
  rank: number;
  key: number;
  id: string;
}

export interface PublishedQuery {
  statuses: readonly PublicAuctionStatus[];
  /** Only auctions in these rooms; undefined = every room. */
  roomIds?: readonly string[] | undefined;
  /** Ended auctions are listed while they ended at or after this time (ISO 8601). */
  endedSince: string;
  limit: number;
  after?: PublishedPosition | undefined;
}

const MAX_IMAGES = 20;

/**
 * Auction metadata holds scalars only: images are `metadata.image` (one URL) and `metadata.images` (URLs
 * separated by spaces or commas). Only http(s) URLs are shown.
 */
function imagesOf(metadata: object): string[] {
  const texts = ['image', 'images'].map((name) => {
    const value: unknown = name in metadata ? Reflect.get(metadata, name) : undefined;
    return typeof value === 'string' ? value : '';
  });
  const urls = texts.flatMap((text) => text.split(/[\s,]+/)).filter((url) => /^https?:\/\/\S+$/.test(url));
  return [...new Set(urls)].slice(0, MAX_IMAGES);
}

function published(row: AuctionRow, now: number): PublishedAuction {
  const view = toAuction(row, now);
  return {
    id: view.id,
    roomId: view.roomId,
    title: view.title,
    description: view.description,
    images: imagesOf(view.metadata),
    status: view.status === 'live' || view.status === 'scheduled' ? view.status : 'ended',
    currency: view.currency,
    startingPrice: view.startingPrice,
    currentPrice: view.currentPrice,
    minimumBid: view.minimumBid,
    buyNowPrice: view.buyNowPrice,
    buyNowAvailable: view.buyNowAvailable,
    bidCount: view.bidCount,
    hasReserve: view.hasReserve,
    reserveMet: view.reserveMet,
    startsAt: view.startsAt,
    endsAt: view.endsAt,
    endedAt: view.endedAt,
    outcome: view.outcome,
    finalPrice: view.finalPrice,
    updatedAt: view.updatedAt,
  };
}

type PositionedRow = AuctionRow & { pub_rank: number; pub_key: number | string };

/** Live first (ending soonest first), then scheduled (starting soonest), then ended (most recent first). */
const POSITIONED = `
  select ${AUCTION_COLUMNS},
         case status when 'live' then 0 when 'scheduled' then 1 else 2 end as pub_rank,
         case status
           when 'live' then coalesce((extract(epoch from ends_at) * 1000)::bigint, 0)
           when 'scheduled' then coalesce((extract(epoch from starts_at) * 1000)::bigint, 8000000000000000)
           else -coalesce((extract(epoch from ended_at) * 1000)::bigint, 0)
         end as pub_key
    from auctions
   where published and status = any($1::text[])
     and (status <> 'ended' or ended_at >= $2::timestamptz)
     and ($3::text[] is null or room_id = any($3::text[]))`;

/** One page of the tenant's published auctions, and the position after its last one when more follow. */
export async function listPublishedAuctions(
  ctx: Pick<ServiceContext, 'db' | 'tenantId' | 'clock'>,
  query: PublishedQuery,
): Promise<{ items: PublishedAuction[]; next: PublishedPosition | undefined }> {
  const { after } = query;
  const { rows } = await tenantRead<PositionedRow>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select * from (${POSITIONED}) a
      where ($4::integer is null or (pub_rank, pub_key, id) > ($4::integer, $5::bigint, $6::text))
      order by pub_rank, pub_key, id
      limit $7`,
    [
      query.statuses,
      query.endedSince,
      query.roomIds === undefined ? null : [...query.roomIds],
      after?.rank ?? null,
      after?.key ?? null,
      after?.id ?? null,
      query.limit + 1,
    ],
  );
  const now = ctx.clock.now();
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    items: page.map((row) => published(row, now)),
    next:
      rows.length > query.limit && last !== undefined
        ? { rank: Number(last.pub_rank), key: Number(last.pub_key), id: last.id }
        : undefined,
  };
}

/** One published auction (live, scheduled or ended), or undefined: drafts, cancelled and unpublished are not. */
export async function getPublishedAuction(
  ctx: Pick<ServiceContext, 'db' | 'tenantId' | 'clock'>,
  auctionId: string,
  roomIds?: readonly string[],
): Promise<PublishedAuction | undefined> {
  const { rows } = await tenantRead<AuctionRow>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select ${AUCTION_COLUMNS} from auctions
      where id = $1 and published and status in ('live', 'scheduled', 'ended')
        and ($2::text[] is null or room_id = any($2::text[]))`,
    [auctionId, roomIds === undefined ? null : [...roomIds]],
  );
  const row = rows[0];
  return row === undefined ? undefined : published(row, ctx.clock.now());
}
