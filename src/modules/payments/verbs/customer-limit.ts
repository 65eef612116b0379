import { actorOf } from '../../../core/auth/principal.ts';
import type { ServiceContext } from '../../../core/context.ts';

/** A session token sees only its own actor's payments; an API key sees all of the tenant's. */
export function customerLimit(ctx: ServiceContext): string | undefined {
  return actorOf(ctx.principal)?.externalId;
}
