import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { NotFound } from '../../../core/http/errors.ts';
import type { Deleted, RoomRef } from '../schema.ts';

export async function deleteRoom(
  ctx: ServiceContext,
  input: Static<typeof RoomRef>,
): Promise<Static<typeof Deleted>> {
  return inTenant(ctx, async (tx, emit) => {
    const { rowCount } = await tx.query('delete from rooms where id = $1', [input.roomId]);
    if (rowCount === 0) throw new NotFound('room', input.roomId);
    await tx.query('update room_counts set n = n - 1 where tenant_id = $1 and n > 0', [ctx.tenantId]);
    await emit('room.deleted', { roomId: input.roomId });
    return { id: input.roomId, deleted: true as const };
  });
}
