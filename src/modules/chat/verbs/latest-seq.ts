import type { ServiceContext } from '../../../core/context.ts';
import { tenantTx } from '../../../core/db/tenant-tx.ts';

/** The seq of the room's newest committed message; 0 before the first. */
export async function latestSeq(ctx: ServiceContext, roomId: string): Promise<number> {
  const { rows } = await tenantTx(ctx.db, { tenantId: ctx.tenantId }, (tx) =>
    tx.query<{ last_seq: number | string }>('select last_seq from chat_room_seq where room_id = $1', [
      roomId,
    ]),
  );
  return Number(rows[0]?.last_seq ?? 0);
}
