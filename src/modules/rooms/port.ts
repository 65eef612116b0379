import type { ServiceContext } from '../../core/context.ts';
import { tenantRead } from '../../core/db/tenant-tx.ts';
import { NotFound } from '../../core/http/errors.ts';

/**
 * The rooms module's port for other modules (chat, presence, realtime frames, auctions): 404 unless
 * `roomId` is a room of the caller's tenant. No permission check: the caller's own route, action or frame
 * was authorized already.
 */
export async function assertRoomExists(
  ctx: Pick<ServiceContext, 'db' | 'tenantId'>,
  roomId: string,
): Promise<void> {
  const { rows } = await tenantRead(ctx.db, { tenantId: ctx.tenantId }, 'select 1 from rooms where id = $1', [
    roomId,
  ]);
  if (rows.length === 0) throw new NotFound('room', roomId);
}
