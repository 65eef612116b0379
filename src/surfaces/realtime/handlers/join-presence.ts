import { type MemberView, memberView, presenceRecord } from '../../../modules/presence/member.ts';
import type { Connection } from '../connection.ts';
import type { Gateway } from '../gateway.ts';
import type { RoomMembership } from '../membership.ts';
import { jsonState } from '../protocol.ts';

/**
 * Adds the connection to the actor's presence in the room. A tab that joins without a state keeps the
 * state the actor's other tabs set; a new member without one starts with `{}`. Says what to announce:
 * `join` for a new member, `update` when the state was replaced, nothing for another tab of a member.
 */
export async function joinPresence(
  gateway: Gateway,
  connection: Connection,
  membership: RoomMembership,
  given: object | undefined,
): Promise<{ view: MemberView; announce: 'join' | 'update' | undefined }> {
  const { presence } = gateway.backplane;
  const { actor } = connection.session;
  const record = presenceRecord(actor, jsonState(given ?? {}));
  let { joined, member } = await presence.join(
    membership.key,
    actor.id,
    connection.id,
    given === undefined ? undefined : record,
  );
  // A new member must carry who it is, which only the full record holds.
  if (joined && given === undefined)
    member = (await presence.update(membership.key, actor.id, record)) ?? member;
  const view = memberView(member);
  membership.presenceState = jsonState(view.state);
  return { view, announce: joined ? 'join' : given === undefined ? undefined : 'update' };
}
