import type { RealtimeHooks } from '../../core/realtime/contributions.ts';
import { roomKey } from '../../core/realtime/index.ts';
import { SharedReads } from '../../core/realtime/shared-reads.ts';
import { assertRoomExists } from './port.ts';

/**
 * Rooms on the realtime gateway: a room is joined only if it exists in the token's tenant, and a deleted
 * room starts over in every module (a room created again under its id numbers its chat from 1).
 */
export function roomsRealtime(): RealtimeHooks {
  // A crowd joining one room at once checks that it exists with one or two reads, not one per join.
  const checks = new SharedReads<string, void>();
  return {
    join: {
      admit: (ctx, frame) =>
        checks.read(roomKey(ctx.tenantId, frame.room), () => assertRoomExists(ctx, frame.room)),
    },
    roomResetEvents: ['room.deleted'],
  };
}
