import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import type { Queryable } from '../../../core/db/database.ts';
import { ACTOR_ROW, sessionOrNamedActor } from '../../../core/tenancy/acting-actor.ts';
import type { ActorInput, ActorView } from '../schema.ts';

export type Actor = Static<typeof ActorView>;

/**
 * The checks of `actingActor` that need no database: a session token may not name another actor, an API
 * key must name one. Returns the session's own actor, if any.
 */
export function checkActingActor(
  ctx: ServiceContext,
  named: Static<typeof ActorInput> | undefined,
): Actor | undefined {
  return sessionOrNamedActor(ctx.principal, named, {
    sessionVerb: 'acts',
    namedFor: 'this change is made as',
  });
}

/**
 * Who a change is made as: a session token speaks for its own actor (and may not name another); an API
 * key names the actor in the input, which is created on first use so servers can post as bots.
 */
export async function actingActor(
  ctx: ServiceContext,
  tx: Queryable,
  named: Static<typeof ActorInput> | undefined,
): Promise<Actor> {
  const own = checkActingActor(ctx, named);
  if (own !== undefined) return own;
  if (named === undefined) throw new Error('checkActingActor let an unnamed actor through');
  // Insert-or-read without touching an existing actor's type or profile (unlike runtime connect).
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
  // Empty only when a concurrent transaction created the actor after this statement's snapshot: read again.
  const row =
    rows[0] ??
    (await tx.query<Actor>(`select ${ACTOR_ROW} from actors where external_id = $1`, [named.id])).rows[0];
  if (row === undefined) throw new Error('actor lookup returned nothing');
  return row;
}
