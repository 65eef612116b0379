import { type Static, type TSchema, Type } from 'typebox';
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
export const TenantSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  workspaceType: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  role: RoleSchema,
});
export const ApiKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  scopes: Type.Array(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Nullable(Type.String({ format: 'date-time' })),
  expiresAt: Nullable(Type.String({ format: 'date-time' })),
  revokedAt: Nullable(Type.String({ format: 'date-time' })),
});
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
export const ProductKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  key: Type.String({ description: 'Publishable; send as X-SVC-Product-Key' }),
  allowedOrigins: Type.Array(Type.String()),
  rateLimitPerMinute: Type.Integer(),
  operatorId: Nullable(Type.String({ description: 'The operator the key speaks for; null = the tenant' })),
  createdAt: Type.String({ format: 'date-time' }),
  revokedAt: Nullable(Type.String({ format: 'date-time' })),
});
export const TeamEntrySchema = Type.Object({
  status: Type.Union([Type.Literal('active'), Type.Literal('pending')]),
  userId: Nullable(Type.String()),
  invitationId: Nullable(Type.String()),
  email: Nullable(Type.String()),
  name: Nullable(Type.String()),
  role: RoleSchema,
  createdAt: Type.String({ format: 'date-time' }),
});
export const listOf = <T extends Parameters<typeof Type.Array>[0]>(item: T) =>
  Type.Object({ data: Type.Array(item) });
