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

/**
 * The bidders of a group, in its order, with one statement for all the actors API keys name (created on
 * first use); session tokens need none.
 */
export async function resolveBidders(
  tx: Queryable,
  tenantId: string,
  items: readonly { ctx: ServiceContext; named: NamedActor | undefined }[],
): Promise<Actor[]> {
  const own = items.map((item) => checkBidder(item.ctx, item.named));
  const named = new Map<string, NamedActor>();
  for (const [i, item] of items.entries())
    if (own[i] === undefined && item.named !== undefined) named.set(item.named.id, item.named);
  const found = new Map<string, Actor>();
  if (named.size > 0) {
    const list = [...named.values()];
    const { rows } = await tx.query<Actor>(
      `with wanted as (
         select * from unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
           as w(type, external_id, identity_provider, display_name, avatar_url)),
       inserted as (
         insert into actors (tenant_id, type, external_id, identity_provider, display_name, avatar_url)
         select $1, * from wanted on conflict (tenant_id, external_id) do nothing returning ${ACTOR_ROW})
       select * from inserted
       union all select ${ACTOR_ROW} from actors where external_id = any($3::text[])`,
      [
        tenantId,
        list.map((a) => a.type),
        list.map((a) => a.id),
        list.map((a) => a.identityProvider),
        list.map((a) => a.displayName ?? null),
        list.map((a) => a.avatarUrl ?? null),
      ],
    );
    for (const row of rows) found.set(row.externalId, row);
    // Created by a concurrent transaction after this statement's snapshot: read once more.
    const missing = list.filter((a) => !found.has(a.id)).map((a) => a.id);
    if (missing.length > 0) {
      const again = await tx.query<Actor>(
        `select ${ACTOR_ROW} from actors where external_id = any($1::text[])`,
        [missing],
      );
      for (const row of again.rows) found.set(row.externalId, row);
    }
  }
  return items.map((item, i) => {
    const actor = own[i] ?? (item.named === undefined ? undefined : found.get(item.named.id));
    if (actor === undefined) throw new Error('actor lookup returned nothing');
    return actor;
  });
}
