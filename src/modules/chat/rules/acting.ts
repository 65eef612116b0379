import type { ActingPhrases } from '../../../core/tenancy/acting-actor.ts';

/** How chat's refusals put who a change is made as (see core's `actingActor`). */
export const CHAT_ACTING: ActingPhrases = { sessionVerb: 'acts', namedFor: 'this change is made as' };
