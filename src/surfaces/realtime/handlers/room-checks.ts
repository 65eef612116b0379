import { roomLimit } from '../../../core/auth/principal.ts';
import type { ServiceContext } from '../../../core/context.ts';
import { AppError, Forbidden, NotFound } from '../../../core/http/errors.ts';
import type { Connection } from '../connection.ts';
import { FrameRefused } from '../frame-errors.ts';
import type { RoomMembership } from '../membership.ts';

/** A session token minted with a roomId may enter that room only. */
export function assertMayEnter(connection: Connection, roomId: string): void {
  const limitedTo = roomLimit(connection.session.principal);
  if (limitedTo !== undefined && limitedTo !== roomId) {
    throw new Forbidden(`this session token is limited to room ${limitedTo}`);
  }
}

/** 404 unless the room exists in the token's tenant; asked through the rooms module's action. */
export async function assertRoomExists(ctx: ServiceContext, roomId: string): Promise<void> {
  const getRoom = ctx.registry.action('get_room');
  if (getRoom === undefined) throw new NotFound('room', roomId);
  await getRoom.action.run(ctx, { roomId });
}

/** The connection's membership of a room named by a frame; the token's room limit is checked first. */
export function membershipIn(connection: Connection, roomId: string): RoomMembership {
  assertMayEnter(connection, roomId);
  const membership = connection.memberships.get(roomId);
  if (membership === undefined) throw new FrameRefused('not_joined', `join room ${roomId} first`);
  return membership;
}

/** The token was not minted for the module a frame belongs to. */
export function notMintedFor(module: string): AppError {
  return new AppError('insufficient_scope', `this session token was not minted for the ${module} module`);
}
