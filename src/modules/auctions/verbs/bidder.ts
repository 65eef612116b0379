import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import type { Queryable } from '../../../core/db/database.ts';
import { ACTOR_ROW, sessionOrNamedActor } from '../../../core/tenancy/acting-actor.ts';
import type { Actor as ActorSchema } from '../../../core/tenancy/actors.ts';
import type { Actor } from '../rules.ts';

export type NamedActor = Static<typeof ActorSchema>;

/**
 * The checks that need no database: a session token bids as its own actor (and may not name another),
 * an API key must name the actor it bids for. Returns the session's actor, if any.
 */
export function checkBidder(ctx: ServiceContext, named: NamedActor | undefined): Actor | undefined {
  return sessionOrNamedActor(ctx.principal, named, {
    sessionVerb: 'bids',
    namedFor: 'this bid is placed for',
  });
}

/** The actors a group's API keys name, once each: what `WANTED_ACTORS_CTE` binds. */
export function namedActors(items: readonly { ctx: ServiceContext; named: NamedActor | undefined }[]): {
  own: (Actor | undefined)[];
  named: NamedActor[];
} {
  const own = items.map((item) => checkBidder(item.ctx, item.named));
  const named = new Map<string, NamedActor>();
  for (const [i, item] of items.entries())
    if (own[i] === undefined && item.named !== undefined) named.set(item.named.id, item.named);
  return { own, named: [...named.values()] };
}

/** The columns of the named actors, bound as five text arrays. */
export function actorParams(named: readonly NamedActor[]): unknown[] {
  return [
    named.map((a) => a.type),
    named.map((a) => a.id),
    named.map((a) => a.identityProvider),
    named.map((a) => a.displayName ?? null),
    named.map((a) => a.avatarUrl ?? null),
  ];
}

/**
 * CTEs that create the named actors on first use (`$t` the tenant, `$a` the first of the five arrays) and
 * `bidders`, every named actor as `{id, type, externalId}` JSON: placed before a statement's main query.
 */
export function actorsCte(t: number, a: number): string {
  return `wanted as (
    select * from unnest($${a}::text[], $${a + 1}::text[], $${a + 2}::text[], $${a + 3}::text[], $${a + 4}::text[])
      as w(type, external_id, identity_provider, display_name, avatar_url)),
  inserted as (
    insert into actors (tenant_id, type, external_id, identity_provider, display_name, avatar_url)
    select $${t}, * from wanted on conflict (tenant_id, external_id) do nothing returning ${ACTOR_ROW}),
  bidders as (
    select * from inserted
    union all select ${ACTOR_ROW} from actors where external_id = any($${a + 1}::text[]))`;
}

/**
 * The bidders of a group, in its order: sessions act as themselves, API keys as the actors `found` holds
 * (read once more when a concurrent transaction created one after the statement's snapshot).
 */
export async function assignBidders(
  tx: Queryable,
  items: readonly { named: NamedActor | undefined }[],
  own: readonly (Actor | undefined)[],
  foundRows: readonly Actor[],
): Promise<Actor[]> {
  const found = new Map(foundRows.map((row) => [row.externalId, row]));
  const missing = items.flatMap((item, i) =>
    own[i] === undefined && item.named !== undefined && !found.has(item.named.id) ? [item.named.id] : [],
  );
  if (missing.length > 0) {
    const again = await tx.query<Actor>(
      `select ${ACTOR_ROW} from actors where external_id = any($1::text[])`,
      [missing],
    );
    for (const row of again.rows) found.set(row.externalId, row);
  }
  return items.map((item, i) => {
    const actor = own[i] ?? (item.named === undefined ? undefined : found.get(item.named.id));
    if (actor === undefined) throw new Error('actor lookup returned nothing');
    return actor;
  });
}
