import { type ActorRef, actorOf, type Principal } from '../auth/principal.ts';
import type { Queryable } from '../db/database.ts';
import { InvalidRequest } from '../http/errors.ts';
import type { ActorInput } from './actors.ts';

/** An actor's columns as an `ActorRef` (`{id, type, externalId, identityProvider}`), to read actors back. */
export const ACTOR_ROW =
  'id::text as id, type, external_id as "externalId", identity_provider as "identityProvider"';

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
  field = '/body/actor',
): ActorRef | undefined {
  const own = actorOf(principal);
  if (own !== undefined) {
    if (named !== undefined && named.id !== own.externalId) {
      throw new InvalidRequest(`a session token ${phrases.sessionVerb} as its own actor`, [
        { field, message: 'must be omitted with a session token', code: 'unexpected_actor' },
      ]);
    }
    return own;
  }
  if (named === undefined) {
    throw new InvalidRequest(`name the actor ${phrases.namedFor}`, [
      { field, message: 'is required with an API key', code: 'required' },
    ]);
  }
  return undefined;
}

/** One write of a batch: who calls, and the actor its input names (if any). */
export interface ActingItem {
  principal: Principal | undefined;
  named: ActorInput | undefined;
}

/**
 * The database-free checks of a batch (`sessionOrNamedActor` for each item) and the actors its API keys
 * name, once each: `own[i]` is item i's session actor, `named` what `namedActorsCte` binds.
 */
export function namedActorsOf(
  items: readonly ActingItem[],
  phrases: ActingPhrases,
  field?: string,
): { own: (ActorRef | undefined)[]; named: ActorInput[] } {
  const own = items.map((item) => sessionOrNamedActor(item.principal, item.named, phrases, field));
  const named = new Map<string, ActorInput>();
  for (const [i, item] of items.entries())
    if (own[i] === undefined && item.named !== undefined) named.set(item.named.id, item.named);
  return { own, named: [...named.values()] };
}

/** The named actors' columns, bound as the five text arrays `namedActorsCte` reads. */
export function namedActorParams(named: readonly ActorInput[]): unknown[] {
  return [
    named.map((a) => a.type),
    named.map((a) => a.id),
    named.map((a) => a.identityProvider),
    named.map((a) => a.displayName ?? null),
    named.map((a) => a.avatarUrl ?? null),
  ];
}

/**
 * CTEs that create the named actors on first use, without touching an existing actor's type or profile
 * (unlike runtime connect), and `named_actors`: every one of them as `ActorRef` rows. `$t` is the tenant
 * and `$a` the first of `namedActorParams`' five arrays; place it in a statement's `with`.
 */
export function namedActorsCte(t: number, a: number): string {
  return `wanted_actors as (
    select * from unnest($${a}::text[], $${a + 1}::text[], $${a + 2}::text[], $${a + 3}::text[], $${a + 4}::text[])
      as w(type, external_id, identity_provider, display_name, avatar_url)),
  inserted_actors as (
    insert into actors (tenant_id, type, external_id, identity_provider, display_name, avatar_url)
    select $${t}, * from wanted_actors on conflict (tenant_id, external_id) do nothing returning ${ACTOR_ROW}),
  named_actors as (
    select * from inserted_actors
    union all select ${ACTOR_ROW} from actors where external_id = any($${a + 1}::text[]))`;
}

/**
 * The actors of a batch, in its order: sessions act as themselves, API keys as the actors `found` holds
 * (the `named_actors` rows), read once more when a concurrent transaction created one after the
 * statement's snapshot.
 */
export async function assignNamedActors(
  tx: Queryable,
  items: readonly Pick<ActingItem, 'named'>[],
  own: readonly (ActorRef | undefined)[],
  foundRows: readonly ActorRef[],
): Promise<ActorRef[]> {
  const found = new Map(foundRows.map((row) => [row.externalId, row]));
  const missing = items.flatMap((item, i) =>
    own[i] === undefined && item.named !== undefined && !found.has(item.named.id) ? [item.named.id] : [],
  );
  if (missing.length > 0) {
    const again = await tx.query<ActorRef>(
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

/**
 * Who one write acts as: a session token speaks for its own actor (and may not name another); an API key
 * names the actor in the input, created on first use so servers can act for users and bots.
 */
export async function actingActor(
  tx: Queryable,
  tenantId: string,
  item: ActingItem,
  phrases: ActingPhrases,
  field?: string,
): Promise<ActorRef> {
  const { own, named } = namedActorsOf([item], phrases, field);
  if (own[0] !== undefined) return own[0];
  const { rows } = await tx.query<ActorRef>(`with ${namedActorsCte(1, 2)} select * from named_actors`, [
    tenantId,
    ...namedActorParams(named),
  ]);
  const [actor] = await assignNamedActors(tx, [item], own, rows);
  if (actor === undefined) throw new Error('actor lookup returned nothing');
  return actor;
}
