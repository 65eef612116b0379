import { FrameRefused, type JoinBase } from '../../../core/realtime/contributions.ts';
import type { Connection } from '../connection.ts';
import type { Gateway } from '../gateway.ts';

/** Leaves a room; each module decides what leaving means for it (presence: the actor's last tab). */
export async function handleLeave(gateway: Gateway, connection: Connection, frame: JoinBase): Promise<void> {
  await gateway.authorize(connection, { roomId: frame.room, name: 'leave' });
  const membership = connection.memberships.get(frame.room);
  if (membership === undefined) throw new FrameRefused('not_joined', `join room ${frame.room} first`);
  await gateway.leave(connection, membership);
}
