import { type TProperties, type TSchema, Type } from 'typebox';
import { PageQuery } from '../../core/http/pagination.ts';
import type { Role } from '../../core/tenancy/roles.ts';
import type { ConsoleTenantOf } from './guard.ts';

// The options console routes are declared with: the credentials they take, the least role the guard
// checks, their path parameters and their documentation under `console`.

export const consoleAuth = { auth: { credentials: ['hosted_user'] as const } };
export const TenantId = Type.String({ pattern: '^ten_[0-9a-z]{26}$' });
export const TenantParams = Type.Object({ tenantId: TenantId });
/** Path parameters of a route addressing one record of the tenant: `:tenantId` and the record's own. */
export const tenantRecordParams = <P extends TProperties>(own: P) =>
  Type.Object({ tenantId: TenantId, ...own });

/** The options of a console route for the signed-in user alone (no tenant yet): hosted-auth JWT, `console` docs. */
export function consoleUserRoute<S extends object>(schema: S) {
  return { config: consoleAuth, schema: { tags: ['console'], ...schema } };
}

/**
 * The options of a console tenant route: hosted-auth JWT, the least role, documented under `console`;
 * `tenantOf` for a route whose path names another record of the tenant than the tenant itself.
 */
export function consoleRoute<S extends object>(minRole: Role, schema: S, tenantOf?: ConsoleTenantOf) {
  return {
    config: { ...consoleAuth, minRole, ...(tenantOf === undefined ? {} : { tenantOf }) },
    schema: { tags: ['console'], ...schema },
  };
}

/**
 * The options of a console route that adds a record to the tenant (a POST under `:tenantId`): its body,
 * and the record it answers with a 201; `refusals` are the other answers it documents (a 409, ...).
 */
export function consoleCreateRoute<B extends TSchema, C extends TSchema, R extends object = object>(
  minRole: Role,
  doc: { operationId: string; summary: string },
  body: B,
  created: C,
  refusals?: R,
) {
  return consoleRoute(minRole, {
    ...doc,
    params: TenantParams,
    body,
    response: { 201: created, ...refusals },
  });
}

/** The options of a console list of the tenant's records (viewer role): `limit`/`cursor`, a page of `page`. */
export function consoleListRoute<P extends TSchema>(operationId: string, summary: string, page: P) {
  return consoleRoute('viewer', {
    operationId,
    summary,
    params: TenantParams,
    querystring: PageQuery,
    response: { 200: page },
  });
}
