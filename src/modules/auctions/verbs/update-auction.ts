import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import {
  AUCTION_COLUMNS,
  type AuctionRow,
  type AuctionView,
  lockAuction,
  toAuction,
} from '../auction-row.ts';
import { recordChanges } from '../changes.ts';
import { isEditable } from '../rules.ts';
import type { UpdateAuctionInput } from '../schema.ts';
import { checkTerms, wrongStatus } from './auction-rules.ts';
import { auctionsConfig } from './config.ts';
import { readAuction } from './get-auction.ts';

/** Edits an auction in draft or scheduled; a null removes an optional term. Metadata merges by key. */
export async function updateAuction(
  ctx: ServiceContext,
  input: Static<typeof UpdateAuctionInput>,
): Promise<AuctionView> {
  await readAuction(ctx, input.auctionId);
  const config = await auctionsConfig(ctx);
  const { auctionId, ...patch } = input;
  const now = ctx.clock.now();
  const auction = await inTenant(ctx, async (tx, _emit, emitEach) => {
    const { row, state } = await lockAuction(tx, auctionId);
    if (!isEditable(state.status)) throw wrongStatus(auctionId, state.status, 'be edited');
    const pick = <T>(value: T | undefined, current: T): T => (value === undefined ? current : value);
    const next = {
      title: pick(patch.title, row.title),
      description: pick(patch.description, row.description),
      currency: pick(patch.currency, row.currency),
      startingPrice: pick(patch.startingPrice, state.startingPrice),
      reservePrice: pick(patch.reservePrice, state.reservePrice),
      buyNowPrice: pick(patch.buyNowPrice, state.buyNowPrice),
      // null: back to the tenant's default.
      increments: patch.increments === null ? config.increments : (patch.increments ?? state.increments),
      startsAt: pick(patch.startsAt, row.starts_at),
      durationSeconds: pick(patch.durationSeconds, row.duration_seconds),
      softClose: patch.softClose === null ? config.softClose : (patch.softClose ?? state.softClose),
      suddenDeath: pick(patch.suddenDeath, state.suddenDeath),
      published: pick(patch.published, row.published),
      metadata: { ...row.metadata, ...(patch.metadata ?? {}) },
    };
    checkTerms(next);
    if (state.status === 'scheduled' && next.startsAt === null)
      throw wrongStatus(auctionId, state.status, 'lose its start time (schedule it again from draft)');
    const seq = state.seq + 1;
    const { rows } = await tx.query<AuctionRow>(
      `update auctions set title = $3, description = $4, currency = $5, starting_price = $6, reserve_price = $7,
          buy_now_price = $8, increments = $9, starts_at = $10, duration_seconds = $11, soft_close = $12,
          sudden_death = $13, published = $14, metadata = $15, seq = $16, updated_at = $17
        where id = $1 and seq = $2 returning ${AUCTION_COLUMNS}`,
      [
        auctionId,
        state.seq,
        next.title,
        next.description,
        next.currency,
        next.startingPrice,
        next.reservePrice,
        next.buyNowPrice,
        JSON.stringify(next.increments),
        next.startsAt,
        next.durationSeconds,
        JSON.stringify(next.softClose),
        next.suddenDeath,
        next.published,
        JSON.stringify(next.metadata),
        seq,
        new Date(now).toISOString(),
      ],
    );
    const updated = rows[0];
    if (updated === undefined) throw new Error(`auction ${auctionId} changed under its lock`);
    const view = toAuction(updated, now);
    await recordChanges(tx, ctx.tenantId, emitEach, [
      {
        by: ctx,
        type: 'auction.updated',
        data: { auctionId, roomId: row.room_id, seq, auction: view, changes: patch },
      },
    ]);
    return view;
  });
  // A new start time moves the scheduler's next wake-up.
  if (patch.startsAt !== undefined) ctx.workers.wake('auctions');
  return auction;
}
