import { type Static, Type } from 'typebox';
import { closedInput, dateTime } from '../../core/http/named-schemas.ts';
import { MAX_PAGE_LIMIT, PAGE_QUERY, Page } from '../../core/http/pagination.ts';
import { oneOf } from '../../core/http/schemas.ts';
import { Nullable } from '../../surfaces/console/schemas.ts';
import { BrandColors, BrandLink, RoomId } from './schema.ts';

/** What `/api/public/*` answers: the field allowlist the tests check. */

export const PublicBrand = closedInput(
  'PublicBrand',
  "A storefront's public brand, its operator's over the tenant's, with locale and currency",
  {
    name: Type.String(),
    slogan: Nullable(Type.String()),
    shortDescription: Nullable(Type.String()),
    logoUrl: Nullable(Type.String()),
    coverImageUrl: Nullable(Type.String()),
    colors: BrandColors,
    links: Type.Array(BrandLink),
    defaultLocale: Type.String(),
    defaultCurrency: Type.String(),
    operator: Nullable(Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String() })),
  },
);
export type PublicBrandView = Static<typeof PublicBrand>;

const Money = Type.Integer({ description: 'Minor units of the currency' });
export const PUBLIC_STATUSES = ['live', 'scheduled', 'ended'] as const;
export const PublicAuction = closedInput(
  'PublicAuction',
  'A published auction as a storefront shows it: price, bids, timing and outcome, no private field',
  {
    id: Type.String(),
    roomId: Type.String(),
    title: Type.String(),
    description: Type.String(),
    images: Type.Array(Type.String()),
    status: oneOf(PUBLIC_STATUSES),
    currency: Type.String(),
    startingPrice: Money,
    currentPrice: Nullable(Money),
    minimumBid: Nullable(Money),
    buyNowPrice: Nullable(Money),
    buyNowAvailable: Type.Boolean(),
    bidCount: Type.Integer({ minimum: 0 }),
    hasReserve: Type.Boolean(),
    reserveMet: Type.Boolean({ description: 'Whether the reserve is met (its amount is never shown)' }),
    startsAt: Nullable(dateTime()),
    endsAt: Nullable(dateTime()),
    endedAt: Nullable(dateTime()),
    outcome: Nullable(oneOf(['sold', 'unsold', 'bought_now'] as const)),
    finalPrice: Nullable(Money),
    updatedAt: dateTime(),
  },
);
export const PublicAuctionPage = Page(
  PublicAuction,
  'PublicAuctionPage',
  'A page of published auctions: live, then scheduled, then recently ended',
);
/** A public page is 20 auctions unless asked (a storefront's first screen); otherwise the common page query. */
export const PUBLIC_PAGE_LIMIT = 20;
export const PublicAuctionsQuery = Type.Object(
  {
    status: Type.Optional(oneOf(PUBLIC_STATUSES, { description: 'Only auctions in this state' })),
    roomId: Type.Optional(RoomId),
    ...PAGE_QUERY,
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_PAGE_LIMIT,
        default: PUBLIC_PAGE_LIMIT,
        description: `Auctions in the page: ${PUBLIC_PAGE_LIMIT} unless asked, at most ${MAX_PAGE_LIMIT}`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const AuctionParams = Type.Object({ auctionId: Type.String({ minLength: 1, maxLength: 100 }) });
