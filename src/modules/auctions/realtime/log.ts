import type { ServiceContext } from '../../../core/context.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import type { LoggedFrame } from './stream.ts';

/** An auction's logged frames from `from` on, oldest first. */
export async function readLog(
  ctx: ServiceContext,
  auctionId: string,
  from: number,
  limit: number,
): Promise<LoggedFrame[]> {
  const { rows } = await tenantRead<{ seq: number | string; frame: Record<string, unknown> }>(
    ctx.db,
    { tenantId: ctx.tenantId },
    'select seq, frame from auction_log where auction_id = $1 and seq >= $2 order by seq limit $3',
    [auctionId, from, limit],
  );
  return rows.map((r) => ({ seq: Number(r.seq), frame: r.frame }));
}

/** Where each auction of the room stands: its newest seq. */
export async function roomAuctions(ctx: ServiceContext, roomId: string): Promise<Map<string, number>> {
  const { rows } = await tenantRead<{ id: string; seq: number | string }>(
    ctx.db,
    { tenantId: ctx.tenantId },
    'select id, seq from auctions where room_id = $1',
    [roomId],
  );
  return new Map(rows.map((r) => [r.id, Number(r.seq)]));
}
