import { type Static, Type } from 'typebox';
import { oneOf } from '../../core/http/schemas.ts';
import { idPattern } from '../../core/ids.ts';
import { AllowedOriginsSchema, Nullable, RateLimitSchema } from '../../surfaces/console/schemas.ts';

// ---- Brand --------------------------------------------------------------------------------------------

const HttpsUrl = Type.String({
  maxLength: 2000,
  pattern: '^https?://[^\\s]+$',
  description: 'An absolute http(s) URL',
});
const Hex = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: 'A color as #RRGGBB' });
export const BrandColors = Type.Object(
  {
    primary: Type.Optional(Hex),
    secondary: Type.Optional(Hex),
    accent: Type.Optional(Hex),
    background: Type.Optional(Hex),
    text: Type.Optional(Hex),
  },
  { additionalProperties: false },
);
export const BrandLink = Type.Object(
  { label: Type.String({ minLength: 1, maxLength: 40 }), url: HttpsUrl },
  { additionalProperties: false },
);

/** Every brand field is optional: the tenant sets what it has, an operator only what differs. */
export const Brand = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    slogan: Type.Optional(Type.String({ maxLength: 160 })),
    shortDescription: Type.Optional(Type.String({ maxLength: 500 })),
    logoUrl: Type.Optional(HttpsUrl),
    coverImageUrl: Type.Optional(HttpsUrl),
    colors: Type.Optional(BrandColors),
    links: Type.Optional(Type.Array(BrandLink, { maxItems: 10 })),
  },
  { additionalProperties: false },
);
export type BrandValue = Static<typeof Brand>;

const RoomId = Type.String({ minLength: 1, maxLength: 100 });
export const Listing = Type.Object(
  {
    roomIds: Type.Optional(
      Nullable(
        Type.Array(RoomId, {
          maxItems: 100,
          description: 'List published auctions of these rooms only; null or absent = every room',
        }),
      ),
    ),
  },
  { additionalProperties: false },
);
export type ListingValue = Static<typeof Listing>;

const Locale = Type.String({
  pattern: '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$',
  description: 'BCP 47, e.g. en or pt-BR',
});
const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217, e.g. EUR' });

// ---- Storefront configuration ---------------------------------------------------------------------------

export const StorefrontBody = Type.Object(
  {
    brand: Type.Optional(Brand),
    allowedOrigins: Type.Optional(AllowedOriginsSchema),
    listing: Type.Optional(Listing),
    defaultLocale: Type.Optional(Locale),
    defaultCurrency: Type.Optional(Currency),
  },
  { additionalProperties: false },
);
export type StorefrontInput = Static<typeof StorefrontBody>;

export const Storefront = Type.Object({
  brand: Brand,
  allowedOrigins: Type.Array(Type.String()),
  listing: Type.Object({ roomIds: Nullable(Type.Array(Type.String())) }),
  defaultLocale: Type.String(),
  defaultCurrency: Type.String(),
  updatedAt: Nullable(Type.String({ format: 'date-time' })),
});
export type StorefrontView = Static<typeof Storefront>;

// ---- Operators --------------------------------------------------------------------------------------------

export const OperatorId = Type.String({ pattern: idPattern('operator') });
const Slug = Type.String({
  minLength: 1,
  maxLength: 60,
  pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
  description: 'Lower-case letters, digits and single hyphens',
});
export const OperatorApp = Type.Object(
  {
    appName: Type.Optional(Type.String({ minLength: 1, maxLength: 30 })),
    androidPackage: Type.Optional(
      Type.String({
        maxLength: 150,
        pattern: '^[a-zA-Z][a-zA-Z0-9_]*(\\.[a-zA-Z][a-zA-Z0-9_]*)+$',
        description: 'e.g. com.example.shop',
      }),
    ),
    iosBundleId: Type.Optional(
      Type.String({
        maxLength: 155,
        pattern: '^[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+$',
        description: 'e.g. com.example.shop',
      }),
    ),
    storeListing: Type.Optional(
      Type.Object(
        {
          title: Type.Optional(Type.String({ maxLength: 30 })),
          shortDescription: Type.Optional(Type.String({ maxLength: 80 })),
          fullDescription: Type.Optional(Type.String({ maxLength: 4000 })),
          keywords: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 40 }), { maxItems: 20 })),
          supportUrl: Type.Optional(HttpsUrl),
          privacyPolicyUrl: Type.Optional(HttpsUrl),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type OperatorAppValue = Static<typeof OperatorApp>;

export const CreateOperatorBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    slug: Slug,
    brand: Type.Optional(Brand),
    app: Type.Optional(OperatorApp),
    listing: Type.Optional(Listing),
  },
  { additionalProperties: false },
);
export type CreateOperatorInput = Static<typeof CreateOperatorBody>;

export const UpdateOperatorBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    slug: Type.Optional(Slug),
    brand: Type.Optional(Brand),
    app: Type.Optional(OperatorApp),
    listing: Type.Optional(Listing),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateOperatorInput = Static<typeof UpdateOperatorBody>;

export const Operator = Type.Object({
  id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  brand: Brand,
  app: OperatorApp,
  listing: Type.Object({ roomIds: Nullable(Type.Array(Type.String())) }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type OperatorView = Static<typeof Operator>;

export const OperatorPage = Type.Object({
  data: Type.Array(Operator),
  nextCursor: Nullable(Type.String()),
});
export const PageQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    cursor: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

export const OperatorStorefront = Type.Object({
  operatorId: Type.String(),
  brand: Brand,
  listing: Type.Object({ roomIds: Nullable(Type.Array(Type.String())) }),
  resolvedBrand: Brand,
});
export const OperatorStorefrontBody = Type.Object(
  { brand: Type.Optional(Brand), listing: Type.Optional(Listing) },
  { additionalProperties: false, minProperties: 1 },
);

export const OperatorKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    allowedOrigins: Type.Optional(AllowedOriginsSchema),
    rateLimitPerMinute: Type.Optional(RateLimitSchema),
  },
  { additionalProperties: false },
);

// ---- Mobile builds ---------------------------------------------------------------------------------------

export const PLATFORMS = ['android', 'ios'] as const;
export type Platform = (typeof PLATFORMS)[number];
export const BUILD_STATUSES = ['dev_mode', 'queued', 'failed', 'succeeded'] as const;

export const MobileBuildBody = Type.Object(
  {
    platform: oneOf(PLATFORMS, { description: 'android or ios' }),
    submitToStores: Type.Optional(Type.Boolean({ default: false, description: 'Default false' })),
  },
  { additionalProperties: false },
);
export type MobileBuildInput = Static<typeof MobileBuildBody>;

export const MobileBuild = Type.Object({
  id: Type.String(),
  operatorId: Type.String(),
  platform: oneOf(PLATFORMS),
  submitToStores: Type.Boolean(),
  requestedBy: Nullable(Type.String({ description: 'The console user (usr_...) who asked' })),
  status: oneOf(BUILD_STATUSES),
  error: Nullable(Type.String()),
  buildUrl: Nullable(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  completedAt: Nullable(Type.String({ format: 'date-time' })),
});
export type MobileBuildView = Static<typeof MobileBuild>;

export const MobileBuildAnswer = Type.Object({
  queued: Type.Boolean(),
  devMode: Type.Boolean(),
  build: MobileBuild,
});
export const MobileBuildPage = Type.Object({
  data: Type.Array(MobileBuild),
  nextCursor: Nullable(Type.String()),
});

export const BuildCallbackBody = Type.Object(
  {
    status: oneOf(['succeeded', 'failed'] as const),
    buildUrl: Type.Optional(HttpsUrl),
    error: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);
export type BuildCallbackInput = Static<typeof BuildCallbackBody>;

// ---- Public answers (the field allowlist the tests check) ----------------------------------------------

export const PublicBrand = Type.Object(
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
  { additionalProperties: false },
);
export type PublicBrandView = Static<typeof PublicBrand>;

const Money = Type.Integer({ description: 'Minor units of the currency' });
export const PUBLIC_STATUSES = ['live', 'scheduled', 'ended'] as const;
export const PublicAuction = Type.Object(
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
    startsAt: Nullable(Type.String({ format: 'date-time' })),
    endsAt: Nullable(Type.String({ format: 'date-time' })),
    endedAt: Nullable(Type.String({ format: 'date-time' })),
    outcome: Nullable(oneOf(['sold', 'unsold', 'bought_now'] as const)),
    finalPrice: Nullable(Money),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);
export const PublicAuctionPage = Type.Object(
  { data: Type.Array(PublicAuction), nextCursor: Nullable(Type.String()) },
  { additionalProperties: false },
);
export const PublicAuctionsQuery = Type.Object(
  {
    status: Type.Optional(oneOf(PUBLIC_STATUSES, { description: 'Only auctions in this state' })),
    roomId: Type.Optional(RoomId),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);
export const AuctionParams = Type.Object({ auctionId: Type.String({ minLength: 1, maxLength: 100 }) });
export const BuildParams = Type.Object({ buildId: Type.String({ pattern: idPattern('mobileBuild') }) });
export const OperatorParams = Type.Object({ operatorId: OperatorId });
export const TenantParams = Type.Object({ tenantId: Type.String({ pattern: idPattern('tenant') }) });
export const TenantOperatorParams = Type.Object({
  tenantId: Type.String({ pattern: idPattern('tenant') }),
  operatorId: OperatorId,
});

export const StorefrontConfig = Type.Object({}, { additionalProperties: false });
