import type { Static } from 'typebox';
import { checkStateSize, memberView, presenceRecord } from '../../../modules/presence/member.ts';
import type { Connection } from '../connection.ts';
import { FrameRefused } from '../frame-errors.ts';
import type { Gateway } from '../gateway.ts';
import { jsonState, type PresenceFrame } from '../protocol.ts';
import { membershipIn, notMintedFor } from './room-checks.ts';

/** Replaces the actor's presence state in a room (shared by all its tabs) and tells the room. */
export async function handlePresence(
  gateway: Gateway,
  connection: Connection,
  frame: Static<typeof PresenceFrame>,
): Promise<void> {
  if (!connection.can.presenceWrite) throw notMintedFor('presence');
  const membership = membershipIn(connection, frame.room);
  const state = jsonState(frame.state);
  checkStateSize(state, '/frame/state');
  if (!membership.isPresenceMember) {
    throw new FrameRefused(
      'not_joined',
      `not a presence member of room ${frame.room} (presence is disabled)`,
    );
  }
  const { actor, tenantId } = connection.session;
  const member = await gateway.backplane.presence.update(
    membership.key,
    actor.id,
    presenceRecord(actor, state),
  );
  membership.presenceState = state;
  if (member === undefined) return;
  await gateway.publish(tenantId, frame.room, { k: 'presence', op: 'update', member: memberView(member) });
}
