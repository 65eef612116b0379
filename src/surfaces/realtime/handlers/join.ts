import { accessRefusal, tenantAccess } from '../../../core/modules/authorize.ts';
import { FrameRefused, type JoinBase } from '../../../core/realtime/contributions.ts';
import { roomKey } from '../../../core/realtime/index.ts';
import type { Connection } from '../connection.ts';
import { encodeParts } from '../frames.ts';
import type { Gateway } from '../gateway.ts';
import { RoomMembership } from '../membership.ts';

/**
 * Enters a room: the one authorization rule (the token reaches the room), each module's checks, then
 * subscribe first and let each module enter, so nothing published in between is missed. The client gets
 * `joined` with what the modules add (presence: members; chat: where the room stands), then what each
 * module sends a joining client (chat: the changes it missed when it resumes), then live frames.
 */
export async function handleJoin(gateway: Gateway, connection: Connection, frame: JoinBase): Promise<void> {
  const { room } = frame;
  const { tenantId, principal } = connection.session;
  const tenant = await tenantAccess(gateway.services, tenantId, false);
  const refusal = accessRefusal(principal, { roomId: room, name: 'join' }, tenant);
  if (refusal !== undefined) throw refusal;
  const joins = gateway.joins;
  for (const join of joins) join.check?.(connection, frame);
  if (connection.memberships.has(room)) throw new FrameRefused('already_joined', `already in room ${room}`);
  if (connection.memberships.size >= gateway.limits.maxRoomsPerConnection) {
    throw new FrameRefused(
      'too_many_rooms',
      `at most ${gateway.limits.maxRoomsPerConnection} rooms per connection`,
    );
  }
  const ctx = gateway.context(connection);
  for (const join of joins) await join.admit?.(ctx, frame);
  // Checked with no await before `attach` counts the new member, so concurrent joins cannot pass it.
  const key = roomKey(tenantId, room);
  const { maxRoomMembers } = gateway.limits;
  if (gateway.rooms.memberCount(key) >= maxRoomMembers) {
    throw new FrameRefused(
      'room_full',
      `room ${room} has ${maxRoomMembers} connections on this instance, its limit; retry later`,
    );
  }
  const membership = new RoomMembership(room, key, connection, gateway.limits.maxHeldFrames);
  connection.memberships.set(room, membership);
  try {
    await gateway.rooms.attach(tenantId, membership);
    const fields: Record<string, unknown> = {};
    for (const join of joins) Object.assign(fields, await join.enter?.(gateway, membership, frame, tenant));
    // The `joined` frame of a full room is large (every member): a burst of joins takes turns with
    // other requests instead of encoding them all in one go.
    await gateway.pacer.turn(gateway.rooms.memberCount(key));
    connection.sendParts(
      encodeParts({
        type: 'joined',
        room,
        ...fields,
        ...(frame.ref === undefined ? {} : { ref: frame.ref }),
      }),
    );
    for (const join of joins) await join.joined?.(gateway, membership, tenant);
    membership.goLive();
  } catch (error) {
    await gateway
      .leave(connection, membership)
      .catch((e: unknown) => gateway.report(e, 'realtime join undo'));
    throw error;
  }
}
