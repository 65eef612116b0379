import { type EmitEach, inTenant, type ServiceContext } from '../../../core/context.ts';
import type { Queryable } from '../../../core/db/database.ts';
import { type LoadedAuction, lockAuction, readAuction } from '../auction-row.ts';

/**
 * Runs `change` on one auction under its row's lock, in one transaction with the events it records. The
 * auction is read first, so another tenant's (or, for a room-limited session, another room's) answers
 * 404 as a read of it would.
 */
export async function changeAuction<T>(
  ctx: ServiceContext,
  auctionId: string,
  change: (tx: Queryable, loaded: LoadedAuction, emitEach: EmitEach) => Promise<T>,
): Promise<T> {
  await readAuction(ctx, auctionId);
  return inTenant(ctx, async (tx, _emit, emitEach) => change(tx, await lockAuction(tx, auctionId), emitEach));
}
