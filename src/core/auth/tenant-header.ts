import type { FastifyRequest } from 'fastify';
import { AppError } from '../http/errors.ts';
import type { Role } from '../tenancy/roles.ts';

/**
 * The header a console user (hosted-auth JWT) sends to act in one of their tenants on the routes that
 * take an API key, as Stripe's `Stripe-Account`: `X-SVC-Tenant: ten_...`. The caller still never names
 * its tenant's data: the JWT says who they are, their membership of that tenant says what they may do.
 */
export const TENANT_HEADER = 'x-svc-tenant';
const TENANT_ID = /^ten_[0-9a-z]{26}$/;

/** The tenant a request names in `X-SVC-Tenant`, undefined without the header, 400 when it is malformed. */
export function tenantHeader(request: FastifyRequest): string | undefined {
  const value = request.headers[TENANT_HEADER];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !TENANT_ID.test(value.trim())) {
    throw new AppError(
      'invalid_request',
      'send X-SVC-Tenant once, with a tenant id (ten_ and 26 characters)',
    );
  }
  return value.trim();
}

/**
 * What a member may do on API-key routes, by role: owners, admins and developers act with every scope,
 * viewers read (`*:read`: every module's and the platform's read scope, and nothing else).
 */
export function roleScopes(role: Role): readonly string[] {
  return role === 'viewer' ? ['*:read'] : ['*'];
}
