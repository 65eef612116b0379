import { type ActorRef, actorOf, type Principal } from '../../core/auth/principal.ts';
import type { ServiceContext } from '../../core/context.ts';
import type { Queryable } from '../../core/db/database.ts';
import { type ActingPhrases, actingActor, sessionOrNamedActor } from '../../core/tenancy/acting-actor.ts';
import type { ActorInput } from '../../core/tenancy/actors.ts';

const PAYS: ActingPhrases = { sessionVerb: 'pays', namedFor: 'who pays in customer' };
const FIELD = '/body/customer';

/**
 * Who pays, checked before anything is written: a session token pays as its own actor (and may name no
 * other); an API key names the customer, or nobody (the payment then comes from the `world` account).
 */
export function checkCustomer(principal: Principal | undefined, customer: ActorInput | undefined): void {
  if (customer !== undefined || actorOf(principal) !== undefined)
    sessionOrNamedActor(principal, customer, PAYS, FIELD);
}

/**
 * The paying actor, in the transaction that writes the payment: the session's own actor, or the one the
 * input names, created on first use (as chat's authors and auctions' bidders are); undefined for nobody.
 */
export async function payingActor(
  tx: Queryable,
  ctx: ServiceContext,
  customer: ActorInput | undefined,
): Promise<ActorRef | undefined> {
  if (customer === undefined && actorOf(ctx.principal) === undefined) return undefined;
  return actingActor(tx, ctx.tenantId, { principal: ctx.principal, named: customer }, PAYS, FIELD);
}

/** A session token sees only its own actor's payments; an API key sees all of the tenant's. */
export function customerLimit(ctx: ServiceContext): ActorRef | undefined {
  return actorOf(ctx.principal);
}
