/** Who is calling, resolved from the credential before any handler runs. */
export type PrincipalKind = 'api_key' | 'hosted_user' | 'session';

export interface ActorRef {
  /** Internal id (`act_...`). */
  id: string;
  type: 'end_user' | 'agent' | 'guest';
  /** Provider-qualified external id, `<provider>:<external_id>`. */
  externalId: string;
  identityProvider: string;
}

export interface Principal {
  kind: PrincipalKind;
  /** The tenant every query runs in. Hosted users get it from the console route's checked membership. */
  tenantId: string | undefined;
  scopes: readonly string[];
  userId?: string;
  apiKeyId?: string;
  /** API keys: how the console names the key (from the verified, cached key row). */
  apiKey?: { id: string; name: string; prefix: string };
  actor?: ActorRef;
  /** Session tokens: the modules and room the token was minted for. */
  modules?: readonly string[];
  roomId?: string;
  sessionId?: string;
  expiresAt?: number;
}

export function hasScope(principal: Principal, scope: string): boolean {
  if (principal.scopes.includes('*') || principal.scopes.includes(scope)) return true;
  const [family] = scope.split(':');
  return principal.scopes.includes(`${family}:*`);
}
