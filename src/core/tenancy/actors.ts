import { type Static, Type } from 'typebox';
import type { ActorRef } from '../auth/principal.ts';
import type { Queryable } from '../db/database.ts';

export const ACTOR_TYPES = ['end_user', 'agent', 'guest'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

/** `<provider>:<external_id>`: provider is a short slug, the rest is the provider's own id. */
export const ACTOR_EXTERNAL_ID = '^[a-z0-9][a-z0-9_.-]{0,63}:[^\\s:][^\\s]{0,254}$';

/**
 * The spec's Actor object, the one shape in which the API names an end user, guest or agent: in requests
 * (runtime connect, an API key acting for someone: chat, bids, payments' customer, analytics) and in every
 * answer, frame, event and webhook payload. Its `id` is the provider-qualified one; the internal row id
 * (`actors.id`) never leaves the service. `actorView` turns a stored actor into this object.
 */
export const Actor = Type.Object(
  {
    type: Type.Union([Type.Literal('end_user'), Type.Literal('agent'), Type.Literal('guest')], {
      description: 'end_user, agent or guest',
    }),
    id: Type.String({
      pattern: ACTOR_EXTERNAL_ID,
      description: 'Provider-qualified external id, `<provider>:<external_id>`, e.g. `acme-oidc:user_42`',
    }),
    identityProvider: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'The identity provider that verified the actor',
    }),
    displayName: Type.Optional(Type.String({ maxLength: 200 })),
    avatarUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2000 })),
  },
  {
    title: 'Actor',
    description: 'An end user, guest or agent, named by the identity provider that verified it',
    additionalProperties: false,
  },
);

export type Actor = Static<typeof Actor>;
/** An actor as a request names it. */
export type ActorInput = Actor;
// The schema lists ACTOR_TYPES by hand (TypeBox needs the literals); this fails to compile if they part.
const _sameTypes: [ActorInput['type'], ActorType] extends [ActorType, ActorInput['type']] ? true : never =
  true;

/** A stored actor (the internal `ActorRef` a session or an upsert holds) as the API shows it. */
export function actorView(actor: Pick<ActorRef, 'type' | 'externalId' | 'identityProvider'>): Actor {
  return { type: actor.type, id: actor.externalId, identityProvider: actor.identityProvider };
}

/**
 * SQL for the API's Actor object of the `actors` row aliased `alias`, as JSON: for statements that answer
 * with the actor of a joined row (`select ..., ${actorJson('a')} as author from ... join actors a ...`).
 */
export function actorJson(alias: string): string {
  return `json_build_object('type', ${alias}.type, 'id', ${alias}.external_id, 'identityProvider', ${alias}.identity_provider)`;
}

/** Same external id in one tenant -> same actor; its type, provider and profile follow the latest connect. */
export async function upsertActor(tx: Queryable, tenantId: string, input: ActorInput): Promise<ActorRef> {
  const { rows } = await tx.query<{
    id: string;
    type: ActorType;
    external_id: string;
    identity_provider: string;
  }>(
    `insert into actors (tenant_id, type, external_id, identity_provider, display_name, avatar_url)
     values ($1, $2, $3, $4, $5, $6)
     on conflict (tenant_id, external_id) do update
       set type = excluded.type, identity_provider = excluded.identity_provider,
           display_name = coalesce(excluded.display_name, actors.display_name),
           avatar_url = coalesce(excluded.avatar_url, actors.avatar_url), updated_at = now()
     returning id, type, external_id, identity_provider`,
    [
      tenantId,
      input.type,
      input.id,
      input.identityProvider,
      input.displayName ?? null,
      input.avatarUrl ?? null,
    ],
  );
  const row = rows[0];
  if (row === undefined) throw new Error('actor upsert returned nothing');
  return { id: row.id, type: row.type, externalId: row.external_id, identityProvider: row.identity_provider };
}
