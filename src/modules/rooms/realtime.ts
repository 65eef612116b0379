import type { RealtimeHooks } from '../../core/realtime/contributions.ts';
import { assertRoomExists } from './port.ts';

/**
 * Rooms on the realtime gateway: a room is joined only if it exists in the token's tenant, and a deleted
 * room starts over in every module (a room created again under its id numbers its chat from 1).
 */
export function roomsRealtime(): RealtimeHooks {
  return {
    join: { admit: (ctx, frame) => assertRoomExists(ctx, frame.room) },
    roomResetEvents: ['room.deleted'],
  };
}
