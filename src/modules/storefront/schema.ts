import { type Static, Type } from 'typebox';
import { closedInput, dateTime, resource } from '../../core/http/named-schemas.ts';
import { Page } from '../../core/http/pagination.ts';
import { AllowedOriginsSchema, Nullable, RateLimitSchema } from '../../surfaces/console/schemas.ts';
import { idPattern } from './ids.ts';

// ---- Brand --------------------------------------------------------------------------------------------

export const HttpsUrl = Type.String({
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
export const Brand = closedInput(
  'Brand',
  "A storefront's brand: name, texts, images, colors and links (every field optional)",
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    slogan: Type.Optional(Type.String({ maxLength: 160 })),
    shortDescription: Type.Optional(Type.String({ maxLength: 500 })),
    logoUrl: Type.Optional(HttpsUrl),
    coverImageUrl: Type.Optional(HttpsUrl),
    colors: Type.Optional(BrandColors),
    links: Type.Optional(Type.Array(BrandLink, { maxItems: 10 })),
  },
);
export type BrandValue = Static<typeof Brand>;

export const RoomId = Type.String({ minLength: 1, maxLength: 100 });
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

export const StorefrontBody = closedInput(
  'PutStorefrontInput',
  "The tenant's whole storefront configuration (fields left out take their defaults)",
  {
    brand: Type.Optional(Brand),
    allowedOrigins: Type.Optional(AllowedOriginsSchema),
    listing: Type.Optional(Listing),
    defaultLocale: Type.Optional(Locale),
    defaultCurrency: Type.Optional(Currency),
  },
);
export type StorefrontInput = Static<typeof StorefrontBody>;

const ListingView = Type.Object({ roomIds: Nullable(Type.Array(Type.String())) });

export const Storefront = resource(
  'Storefront',
  "The tenant's storefront: brand, allowed origins, listing, default locale and currency",
  {
    brand: Brand,
    allowedOrigins: Type.Array(Type.String()),
    listing: ListingView,
    defaultLocale: Type.String(),
    defaultCurrency: Type.String(),
    updatedAt: Nullable(dateTime()),
  },
);
export type StorefrontView = Static<typeof Storefront>;

// ---- Operators --------------------------------------------------------------------------------------------

export const OperatorId = Type.String({ pattern: idPattern('operator') });
const Slug = Type.String({
  minLength: 1,
  maxLength: 60,
  pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
  description: 'Lower-case letters, digits and single hyphens',
});
export const OperatorApp = closedInput(
  'OperatorApp',
  "An operator's white-label app: its name, store identifiers and store listing",
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
);
export type OperatorAppValue = Static<typeof OperatorApp>;

export const CreateOperatorBody = closedInput(
  'CreateOperatorInput',
  'A new operator: its name, slug, brand overrides, app identifiers and listing',
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    slug: Slug,
    brand: Type.Optional(Brand),
    app: Type.Optional(OperatorApp),
    listing: Type.Optional(Listing),
  },
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
  {
    title: 'UpdateOperatorInput',
    description: "The operator's fields to change; those left out stay",
    additionalProperties: false,
    minProperties: 1,
  },
);
export type UpdateOperatorInput = Static<typeof UpdateOperatorBody>;

export const Operator = resource(
  'Operator',
  'A business (op_...) the tenant runs a white-label app for, with its brand overrides',
  {
    id: Type.String(),
    name: Type.String(),
    slug: Type.String(),
    brand: Brand,
    app: OperatorApp,
    listing: ListingView,
    createdAt: dateTime(),
    updatedAt: dateTime(),
  },
);
export type OperatorView = Static<typeof Operator>;

export const OperatorPage = Page(Operator, 'OperatorPage', "A page of the tenant's operators, newest first");

export const OperatorStorefront = resource(
  'OperatorStorefront',
  "An operator's brand overrides and listing, and the brand its storefront shows",
  { operatorId: Type.String(), brand: Brand, listing: ListingView, resolvedBrand: Brand },
);
export const OperatorStorefrontBody = Type.Object(
  { brand: Type.Optional(Brand), listing: Type.Optional(Listing) },
  {
    title: 'PutOperatorStorefrontInput',
    description: "The operator's brand overrides and listing",
    additionalProperties: false,
    minProperties: 1,
  },
);

export const OperatorKeyBody = closedInput(
  'CreateOperatorProductKeyInput',
  'A new product key that speaks for the operator: its name, allowed origins and rate limit',
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    allowedOrigins: Type.Optional(AllowedOriginsSchema),
    rateLimitPerMinute: Type.Optional(RateLimitSchema),
  },
);

export const OperatorParams = Type.Object({ operatorId: OperatorId });
export const TenantOperatorParams = Type.Object({
  tenantId: Type.String({ pattern: idPattern('tenant') }),
  operatorId: OperatorId,
});

export const StorefrontConfig = closedInput('StorefrontConfig', 'The storefront module has no settings', {});
