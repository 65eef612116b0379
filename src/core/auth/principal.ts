import { AppError } from '../http/errors.ts';
import type { Role } from '../tenancy/roles.ts';

/** Who is calling, resolved from the credential before any handler runs. */
export type PrincipalKind = Principal['kind'];

export interface ActorRef {
  /** Internal row id (a UUID): it never leaves the service; the API names the actor by `externalId`. */
  id: string;
  type: 'end_user' | 'agent' | 'guest';
  /** Provider-qualified external id, `<provider>:<external_id>`. */
  externalId: string;
  identityProvider: string;
}

/** A tenant API key: server integrations. */
export interface ApiKeyPrincipal {
  kind: 'api_key';
  tenantId: string;
  scopes: readonly string[];
  apiKeyId: string;
  /** How the console names the key (from the verified, cached key row). */
  apiKey: { id: string; name: string; prefix: string };
}

/**
 * A console user (hosted-auth JWT). The tenant is known only once a console route checked membership, or
 * when the user acts in a tenant on an API-key route (`X-SVC-Tenant`): then `role` is set and `scopes` are
 * the role's, checked like an API key's.
 */
export interface HostedUserPrincipal {
  kind: 'hosted_user';
  tenantId: string | undefined;
  scopes: readonly string[];
  userId: string;
  /** The membership role, when acting in a tenant through `X-SVC-Tenant`. */
  role?: Role;
}

/** A session token minted by `POST /v1/runtime/connect` for an end user, guest or agent. */
export interface SessionPrincipal {
  kind: 'session';
  tenantId: string;
  scopes: readonly string[];
  actor: ActorRef;
  /** The modules the token was minted for. */
  modules: readonly string[];
  /** The one room the token reaches, when it was minted for one. */
  roomId?: string;
  sessionId: string;
  expiresAt: number;
  /** The API key that minted the token: revoking the key revokes the token. */
  mintedBy?: string;
}

/**
 * A publishable product key (`X-SVC-Product-Key`): the public read surface of one tenant (or of one of its
 * operators). It holds no scope: a route that names `product` among its credentials is the whole grant.
 */
export interface ProductPrincipal {
  kind: 'product';
  tenantId: string;
  scopes: readonly string[];
  productKeyId: string;
  /** The operator the key speaks for, when it was bound to one. */
  operatorId?: string;
  /** What the key's row limits: browser origins (empty = any) and requests per minute per client address. */
  restrictions: { allowedOrigins: readonly string[]; requestsPerMinute: number };
}

export type Principal = ApiKeyPrincipal | HostedUserPrincipal | SessionPrincipal | ProductPrincipal;

/** A principal whose tenant is known (every kind but a console user outside a tenant route). */
export type TenantPrincipal = Principal & { tenantId: string };

/** The principal of a route that requires a credential (the authenticate hook refused requests without). */
export function authenticated(principal: Principal | undefined): Principal {
  if (principal === undefined) throw new AppError('unauthorized', 'this route needs a credential');
  return principal;
}

/** The principal with its tenant, or the 401 a route that needs one answers. */
export function tenantPrincipal(principal: Principal | undefined): TenantPrincipal {
  if (principal === undefined) throw new AppError('unauthorized', 'this route needs a credential');
  if (!hasTenant(principal)) throw new AppError('unauthorized', 'this route needs a tenant credential');
  return principal;
}

function hasTenant(principal: Principal): principal is TenantPrincipal {
  return principal.tenantId !== undefined;
}

/** The console user behind a hosted-auth JWT, or 401 for any other credential. */
export function hostedUser(principal: Principal | undefined): HostedUserPrincipal {
  if (principal?.kind !== 'hosted_user') throw new AppError('unauthorized', 'send a hosted-auth JWT');
  return principal;
}

/** The session behind a session token, or 401 for any other credential. */
export function sessionOf(principal: Principal | undefined): SessionPrincipal {
  if (principal?.kind !== 'session') throw new AppError('unauthorized', 'send a session token');
  return principal;
}

/** The room a session token is limited to, if any. */
export function roomLimit(principal: Principal | undefined): string | undefined {
  return principal?.kind === 'session' ? principal.roomId : undefined;
}

/** The runtime actor a session token speaks for, if any. */
export function actorOf(principal: Principal | undefined): ActorRef | undefined {
  return principal?.kind === 'session' ? principal.actor : undefined;
}

/**
 * Whether the principal holds `scope` (`<family>:<verb>`): itself, `*`, `<family>:*`, or `*:<verb>` (a
 * console viewer's `*:read`; API keys cannot be given that form).
 */
export function hasScope(principal: Principal, scope: string): boolean {
  if (principal.scopes.includes('*') || principal.scopes.includes(scope)) return true;
  const [family, verb] = scope.split(':');
  return principal.scopes.includes(`${family}:*`) || principal.scopes.includes(`*:${verb}`);
}

/** A console user acting in a tenant through `X-SVC-Tenant`: it may call what an API key may. */
export function actsInTenant(principal: Principal): principal is HostedUserPrincipal & { tenantId: string } {
  return principal.kind === 'hosted_user' && principal.role !== undefined && principal.tenantId !== undefined;
}
