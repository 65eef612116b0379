import type { Static } from 'typebox';
import { actorOf } from '../../../core/auth/principal.ts';
import type { ServiceContext } from '../../../core/context.ts';
import type { Queryable } from '../../../core/db/database.ts';
import { InvalidRequest } from '../../../core/http/errors.ts';
import type { ActorInputSchema } from '../../../core/tenancy/actors.ts';
import type { Actor } from '../rules.ts';

export type NamedActor = Static<typeof ActorInputSchema>;

const ACTOR_ROW = 'id::text as id, type, external_id as "externalId"';

/**
 * The checks that need no database: a session token bids as its own actor (and may not name another),
 * an API key must name the actor it bids for. Returns the session's actor, if any.
 */
export function checkBidder(ctx: ServiceContext, named: NamedActor | undefined): Actor | undefined {
  const own = actorOf(ctx.principal);
  if (own !== undefined) {
    if (named !== undefined && named.id !== own.externalId) {
      throw new InvalidRequest('a session token bids as its own actor', [
        { field: '/body/actor', message: 'must be omitted with a session token', code: 'unexpected_actor' },
      ]);
    }
    return { id: own.id, type: own.type, externalId: own.externalId };
  }
  if (named === undefined) {
    throw new InvalidRequest('name the actor this bid is placed for', [
      { field: '/body/actor', message: 'is required with an API key', code: 'required' },
    ]);
  }
  return undefined;
}

/** The bidder: the session's actor, or the actor an API key names (created on first use). */
export async function resolveBidder(
  ctx: ServiceContext,
  tx: Queryable,
  named: NamedActor | undefined,
): Promise<Actor> {
  const own = checkBidder(ctx, named);
  if (own !== undefined) return own;
  if (named === undefined) throw new Error('checkBidder let an unnamed actor through');
  const { rows } = await tx.query<Actor>(
    `with inserted as (
       insert into actors (tenant_id, type, external_id, identity_provider, display_name, avatar_url)
       values ($1, $2, $3, $4, $5, $6) on conflict (tenant_id, external_id) do nothing returning ${ACTOR_ROW})
     select * from inserted union all select ${ACTOR_ROW} from actors where external_id = $3 limit 1`,
    [
      ctx.tenantId,
      named.type,
      named.id,
      named.identityProvider,
      named.displayName ?? null,
      named.avatarUrl ?? null,
    ],
  );
  const row =
    rows[0] ??
    (await tx.query<Actor>(`select ${ACTOR_ROW} from actors where external_id = $1`, [named.id])).rows[0];
  if (row === undefined) throw new Error('actor lookup returned nothing');
  return row;
}
