import type { Static } from 'typebox';
import type { ActorRef } from '../../core/auth/principal.ts';
import { InvalidRequest } from '../../core/http/errors.ts';
import type { JsonObject, PresenceMember } from '../../core/realtime/index.ts';
import { MAX_STATE_BYTES, type Member } from './schema.ts';

export type MemberView = Static<typeof Member>;

/**
 * What the presence store keeps for a member: who it is (so any instance can show it without a database
 * read) and the client's state. Members are keyed by internal actor id: one member per actor, any tabs.
 */
export function presenceRecord(actor: ActorRef, state: JsonObject): JsonObject {
  return { who: { type: actor.type, externalId: actor.externalId }, state };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function memberView(member: PresenceMember): MemberView {
  const record = member.state;
  const who =
    typeof record.who === 'object' && record.who !== null && !Array.isArray(record.who) ? record.who : {};
  const state = record.state;
  return {
    actor: { id: member.actor, type: text(who.type), externalId: text(who.externalId) },
    state: typeof state === 'object' && state !== null && !Array.isArray(state) ? state : {},
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
