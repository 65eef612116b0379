import { type Static, type TSchema, Type } from 'typebox';
import { Page } from '../../core/http/pagination.ts';
import { oneOf } from '../../core/http/schemas.ts';
import { ROLES, WORKSPACE_TYPES } from '../../core/tenancy/roles.ts';

/**
 * `T | null`. A schema with a single `type` becomes `type: [type, "null"]`: the response serializer then
 * checks for null directly instead of trying each branch of an `anyOf` with a validator on every reply.
 */
export const Nullable = <T extends TSchema>(s: T) => {
  const type = (s as { type?: unknown }).type;
  if (typeof type === 'string' && !('const' in s)) {
    return Type.Unsafe<Static<T> | null>({ ...s, type: [type, 'null'] });
  }
  return Type.Unsafe<Static<T> | null>(Type.Union([s, Type.Null()]));
};
export const RoleSchema = oneOf(ROLES, { description: 'owner > admin > developer > viewer' });
export const WorkspaceTypeSchema = oneOf(WORKSPACE_TYPES, { description: 'commerce, community or sandbox' });
export const TenantSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    workspaceType: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    role: RoleSchema,
  },
  { title: 'Tenant', description: "A tenant (ten_...) with the caller's role in it" },
);
export const TenantPage = Page(TenantSchema, 'TenantPage', 'A page of the tenants the caller belongs to');
export const ApiKeySchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    prefix: Type.String(),
    scopes: Type.Array(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
    lastUsedAt: Nullable(Type.String({ format: 'date-time' })),
    expiresAt: Nullable(Type.String({ format: 'date-time' })),
    revokedAt: Nullable(Type.String({ format: 'date-time' })),
  },
  { title: 'ApiKey', description: 'A tenant API key (key_...); its secret is never shown after creation' },
);
export const ApiKeyPage = Page(ApiKeySchema, 'ApiKeyPage', "A page of the tenant's API keys");
/** A browser origin (`scheme://host[:port]`), or `scheme://*.domain` for every subdomain of one. */
export const OriginSchema = Type.String({
  maxLength: 200,
  pattern:
    '^[A-Za-z][A-Za-z0-9+.-]{0,19}://(\\*\\.)?[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*(:[0-9]{1,5})?$',
  description:
    'An origin such as https://shop.example.com or http://localhost:3000; https://*.example.com for its subdomains',
});
export const AllowedOriginsSchema = Type.Array(OriginSchema, {
  maxItems: 50,
  description: 'Browser origins the key may be used from (checked against Origin); empty = any origin',
});
export const RateLimitSchema = Type.Integer({
  minimum: 1,
  maximum: 100_000,
  description: 'Requests per minute one client address may make with the key (default 600)',
});
export const ProductKeySchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    key: Type.String({ description: 'Publishable; send as X-SVC-Product-Key' }),
    allowedOrigins: Type.Array(Type.String()),
    rateLimitPerMinute: Type.Integer(),
    operatorId: Nullable(Type.String({ description: 'The operator the key speaks for; null = the tenant' })),
    createdAt: Type.String({ format: 'date-time' }),
    revokedAt: Nullable(Type.String({ format: 'date-time' })),
  },
  { title: 'ProductKey', description: 'A publishable product key (pk_...) of the tenant or of one operator' },
);
export const ProductKeyPage = Page(ProductKeySchema, 'ProductKeyPage', 'A page of product keys');
export const TeamEntrySchema = Type.Object(
  {
    status: Type.Union([Type.Literal('active'), Type.Literal('pending')]),
    userId: Nullable(Type.String()),
    invitationId: Nullable(Type.String()),
    email: Nullable(Type.String()),
    name: Nullable(Type.String()),
    role: RoleSchema,
    createdAt: Type.String({ format: 'date-time' }),
  },
  { title: 'TeamEntry', description: 'A member of the tenant (active) or an invitation (pending)' },
);
export const TeamPage = Page(
  TeamEntrySchema,
  'TeamEntryPage',
  "A page of the tenant's members and invitations",
);
/** A console answer that only says the change is made. */
export const Ok = Type.Object(
  { ok: Type.Literal(true) },
  { title: 'OkResult', description: 'The change is made' },
);
