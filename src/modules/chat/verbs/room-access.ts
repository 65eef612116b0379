import type { ServiceContext } from '../../../core/context.ts';
import { Forbidden, NotFound } from '../../../core/http/errors.ts';

/** A session token minted with a roomId reaches that room only, by route and by action alike. */
export function assertRoomAllowed(ctx: ServiceContext, roomId: string): void {
  const limitedTo = ctx.principal?.roomId;
  if (limitedTo !== undefined && limitedTo !== roomId) {
    throw new Forbidden(`this session token is limited to room ${limitedTo}`);
  }
}

/**
 * 404 unless the room exists in the caller's tenant. Asked through the rooms module's own action (modules
 * do not read each other's tables); the caller's permissions were checked by its route or action already.
 */
export async function assertRoomExists(ctx: ServiceContext, roomId: string): Promise<void> {
  const getRoom = ctx.registry.action('get_room');
  if (getRoom === undefined) throw new NotFound('room', roomId);
  await getRoom.action.run(ctx, { roomId });
}
