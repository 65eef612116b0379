import {
  FrameRefused,
  type RealtimeConnection,
  type RealtimeMembership,
} from '../../../core/realtime/contributions.ts';

/** The connection's membership of a room named by a frame (the frame's access was checked already). */
export function membershipIn(connection: RealtimeConnection, roomId: string): RealtimeMembership {
  const membership = connection.memberships.get(roomId);
  if (membership === undefined) throw new FrameRefused('not_joined', `join room ${roomId} first`);
  return membership;
}
