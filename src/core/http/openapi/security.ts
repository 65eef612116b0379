import type { RouteOptions } from 'fastify';
import type { RouteAuth } from '../../auth/authenticate.ts';

export const SECURITY_SCHEMES = {
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'Tenant API key (`svc_...`) as `Authorization: Bearer <API_KEY>`.',
  },
  apiKeyHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'Tenant API key in the `X-API-Key` header.',
  },
  hostedJwt: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Hosted-auth JWT from the console identity provider (or `svc dev-token` in development).',
  },
  consoleTenant: {
    type: 'apiKey',
    in: 'header',
    name: 'X-SVC-Tenant',
    description:
      'With a hosted-auth JWT, on a route that takes an API key: the tenant (`ten_...`) the console user acts ' +
      'in. Their membership decides: owner, admin and developer act with every scope, viewer with the read ' +
      'scopes (`*:read`). Not a member: 403 `forbidden`.',
  },
  sessionToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Short-lived session token minted by `POST /v1/runtime/connect`.',
  },
  productKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-SVC-Product-Key',
    description:
      'Publishable product key (`pk_live_...`, created in the console): safe to embed in a page or an app. ' +
      'Grants only the routes that list it; may be limited to browser origins (others: 403 `forbidden`) and ' +
      'is rate limited per key and client address (429 `rate_limited` with `Retry-After`). Missing or ' +
      'unknown: 401 `invalid_api_key`.',
  },
} as const;

export type SecuritySchemeName = keyof typeof SECURITY_SCHEMES;

/**
 * A route declares who may call it once, in `config.auth` (the runtime check, authenticate.ts); its OpenAPI
 * `security` is derived from that here, so the two cannot part. A route without `config.auth` is public and
 * says so: `security: []` (an empty requirement list). `derived` holds the lists made here (a HEAD route
 * arrives with its GET's), so a list a route wrote by hand is told apart and refused.
 */
export function addSecurity(route: RouteOptions, derived: WeakSet<object>): void {
  route.schema ??= {};
  const schema = route.schema;
  const auth = (route.config as { auth?: RouteAuth } | undefined)?.auth;
  if (schema.security !== undefined && derived.has(schema.security)) return;
  if (schema.security !== undefined) {
    throw new Error(
      `route ${String(route.method)} ${route.url} sets schema.security by hand; declare config.auth instead`,
    );
  }
  const security =
    auth === undefined
      ? []
      : securityFor(...(auth.optional === true ? ['none' as const] : []), ...auth.credentials);
  derived.add(security);
  schema.security = security;
}

/** OpenAPI security requirements for the credential kinds a route accepts (`none`: also without one). */
function securityFor(
  ...kinds: ('api_key' | 'session' | 'hosted_user' | 'product' | 'none')[]
): Record<string, string[]>[] {
  return kinds.flatMap((kind) => {
    switch (kind) {
      case 'api_key':
        // A console user acts where an API key does, naming the tenant (X-SVC-Tenant).
        return [{ apiKey: [] }, { apiKeyHeader: [] }, { hostedJwt: [], consoleTenant: [] }];
      case 'session':
        return [{ sessionToken: [] }];
      case 'hosted_user':
        return [{ hostedJwt: [] }];
      case 'product':
        return [{ productKey: [] }];
      default:
        return [{}];
    }
  });
}
