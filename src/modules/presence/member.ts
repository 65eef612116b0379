import type { Static } from 'typebox';
import type { ActorRef } from '../../core/auth/principal.ts';
import { InvalidRequest } from '../../core/http/errors.ts';
import type { JsonObject, JsonValue, PresenceMember } from '../../core/realtime/index.ts';
import { ACTOR_TYPES, type Actor, actorView } from '../../core/tenancy/actors.ts';
import { MAX_STATE_BYTES, type Member } from './schema.ts';

export type MemberView = Static<typeof Member>;

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What the presence store keeps for a member: who it is, as the API's Actor object (so any instance can
 * show it without a database read), and the client's state. The store keys members by internal actor id
 * (one member per actor, any tabs); that id never leaves the service.
 */
export function presenceRecord(actor: ActorRef, state: JsonObject): JsonObject {
  return { who: actorView(actor), state };
}

/**
 * The Actor object a record holds. A record written before issue 29 holds `{type, externalId}`: its id is
 * the external id and its provider that id's prefix, so it reads as the new shape until its member leaves.
 */
function actorOfRecord(who: JsonValue | undefined): Actor {
  const record = isObject(who) ? who : {};
  const type = ACTOR_TYPES.find((t) => t === record.type) ?? 'end_user';
  const id = typeof record.id === 'string' ? record.id : String(record.externalId ?? '');
  const identityProvider =
    typeof record.identityProvider === 'string' ? record.identityProvider : id.slice(0, id.indexOf(':'));
  return { type, id, identityProvider };
}

export function memberView(member: PresenceMember): MemberView {
  const { who, state } = member.state;
  return {
    actor: actorOfRecord(who),
    state: isObject(state) ? state : {},
    connections: member.connections,
    joinedAt: new Date(member.joinedAt).toISOString(),
    updatedAt: new Date(member.updatedAt).toISOString(),
  };
}

/** 400 when a client's state is larger than members may carry. */
export function checkStateSize(state: JsonObject, field: string): void {
  const bytes = Buffer.byteLength(JSON.stringify(state));
  if (bytes > MAX_STATE_BYTES) {
    throw new InvalidRequest(`presence state is ${bytes} bytes; at most ${MAX_STATE_BYTES}`, [
      { field, message: `must be at most ${MAX_STATE_BYTES} bytes as JSON`, code: 'too_large' },
    ]);
  }
}
