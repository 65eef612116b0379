import type { ServiceContext } from '../../../core/context.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';

/** Where a room's chat stands: its newest message and its newest change (both 0 before the first). */
export interface RoomPosition {
  seq: number;
  changeSeq: number;
}

export async function roomPosition(ctx: ServiceContext, roomId: string): Promise<RoomPosition> {
  const { rows } = await tenantRead<{ last_seq: number | string; last_change: number | string }>(
    ctx.db,
    { tenantId: ctx.tenantId },
    'select last_seq, last_change from chat_room_seq where room_id = $1',
    [roomId],
  );
  const row = rows[0];
  return { seq: Number(row?.last_seq ?? 0), changeSeq: Number(row?.last_change ?? 0) };
}

/**
 * The change that created message `seq` (0 for seq 0): a client that saw that message saw every change
 * before it. A message stored without one (by an older instance during a rolling deploy) answers with
 * the newest message before it that has one, which can only resend changes, never skip them.
 */
export async function changeOfMessage(ctx: ServiceContext, roomId: string, seq: number): Promise<number> {
  const { rows } = await tenantRead<{ created_change: number | string }>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select created_change from chat_messages
        where room_id = $1 and seq <= $2 and created_change is not null
        order by seq desc limit 1`,
    [roomId, seq],
  );
  return Number(rows[0]?.created_change ?? 0);
}

/**
 * Whether the room still has change `changeSeq` (numbers have no gaps, and old changes are deleted oldest
 * first: once this one is there, every later one is too).
 */
export async function changeKept(ctx: ServiceContext, roomId: string, changeSeq: number): Promise<boolean> {
  const { rows } = await tenantRead(
    ctx.db,
    { tenantId: ctx.tenantId },
    'select 1 from chat_changes where room_id = $1 and change_seq = $2',
    [roomId, changeSeq],
  );
  return rows.length > 0;
}
