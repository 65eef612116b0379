import { roomLimit } from '../../../core/auth/principal.ts';
import type { ServiceContext } from '../../../core/context.ts';
import { Forbidden } from '../../../core/http/errors.ts';

/** A session token minted with a roomId reaches that room only, by route and by action alike. */
export function assertRoomAllowed(ctx: ServiceContext, roomId: string): void {
  const limitedTo = roomLimit(ctx.principal);
  if (limitedTo !== undefined && limitedTo !== roomId) {
    throw new Forbidden(`this session token is limited to room ${limitedTo}`);
  }
}
