import { type ActorRef, actorOf, type Principal } from '../auth/principal.ts';
import { InvalidRequest } from '../http/errors.ts';
import type { ActorInput } from './actors.ts';

/** An actor's columns as `{id, type, externalId}`, for statements that read actors back. */
export const ACTOR_ROW = 'id::text as id, type, external_id as "externalId"';

/** How a module's refusals put it, e.g. `acts` / `this change is made as`, `bids` / `this bid is placed for`. */
export interface ActingPhrases {
  /** "a session token <sessionVerb> as its own actor" */
  sessionVerb: string;
  /** "name the actor <namedFor>" */
  namedFor: string;
}

/**
 * Who a write acts as, as far as it is known without the database: a session token acts as its own actor
 * (and may not name another); an API key must name one in `/body/actor`. Returns the session's actor, or
 * undefined when the named one is to be used.
 */
export function sessionOrNamedActor(
  principal: Principal | undefined,
  named: ActorInput | undefined,
  phrases: ActingPhrases,
): Pick<ActorRef, 'id' | 'type' | 'externalId'> | undefined {
  const own = actorOf(principal);
  if (own !== undefined) {
    if (named !== undefined && named.id !== own.externalId) {
      throw new InvalidRequest(`a session token ${phrases.sessionVerb} as its own actor`, [
        { field: '/body/actor', message: 'must be omitted with a session token', code: 'unexpected_actor' },
      ]);
    }
    return { id: own.id, type: own.type, externalId: own.externalId };
  }
  if (named === undefined) {
    throw new InvalidRequest(`name the actor ${phrases.namedFor}`, [
      { field: '/body/actor', message: 'is required with an API key', code: 'required' },
    ]);
  }
  return undefined;
}
