import type { ServiceContext } from '../../../core/context.ts';
import type { Queryable } from '../../../core/db/database.ts';
import { Conflict } from '../../../core/http/errors.ts';
import { actorView } from '../../../core/tenancy/actors.ts';
import { type AuctionRow, type LoadedAuction, saveState, toAuction } from '../auction-row.ts';
import type { AuctionChange } from '../changes.ts';
import { type AuctionState, endAuction } from '../rules.ts';

/**
 * The room's scheduled and live auctions stay within the configured maximum. Changes that count against
 * it take the room's advisory lock first, so two of them cannot both see room for one more.
 */
export async function checkRoomCapacity(
  tx: Queryable,
  ctx: ServiceContext,
  roomId: string,
  maxLivePerRoom: number,
): Promise<void> {
  await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`auctions:${ctx.tenantId}:${roomId}`]);
  const { rows } = await tx.query<{ n: number | string }>(
    `select count(*) as n from auctions where room_id = $1 and status in ('scheduled', 'live')`,
    [roomId],
  );
  if (Number(rows[0]?.n ?? 0) >= maxLivePerRoom) {
    throw new Conflict(
      `room ${roomId} has ${maxLivePerRoom} auctions scheduled or live, its configured maximum`,
    );
  }
}

/** A change of a locked auction's status: its saved row and the event that tells of it. */
type Transition = (
  tx: Queryable,
  ctx: ServiceContext,
  loaded: LoadedAuction,
  now: number,
) => Promise<{ row: AuctionRow; change: AuctionChange }>;

/**
 * Applies `change` to a locked auction's state (which moves its seq on) and saves it, with the time stamps
 * `change` returns.
 */
export async function saveTransition(
  tx: Queryable,
  { row, state }: LoadedAuction,
  now: number,
  change: (state: AuctionState) => { startedAt?: number; endedAt?: number },
): Promise<AuctionRow> {
  const before = state.seq;
  const stamps = change(state);
  return saveState(tx, row.id, before, state, now, stamps);
}

/** Makes a locked auction live now: it ends `durationSeconds` later. Returns its `auction.started`. */
export const goLive: Transition = async (tx, ctx, loaded, now) => {
  const { row, state } = loaded;
  const saved = await saveTransition(tx, loaded, now, () => {
    state.status = 'live';
    state.endsAt = now + row.duration_seconds * 1000;
    state.seq += 1;
    return { startedAt: now };
  });
  const auction = toAuction(saved, now);
  return {
    row: saved,
    change: {
      by: ctx,
      type: 'auction.started',
      data: {
        auctionId: row.id,
        roomId: row.room_id,
        seq: state.seq,
        startedAt: saved.started_at,
        endsAt: auction.endsAt,
        auction,
      },
    },
  };
};

/** The `auction.ended` of a state the rules just ended. */
export function endedChange(
  ctx: ServiceContext,
  row: AuctionRow,
  state: AuctionState,
  now: number,
  seq: number = state.seq,
): AuctionChange {
  return {
    by: ctx,
    type: 'auction.ended',
    data: {
      auctionId: row.id,
      roomId: row.room_id,
      seq,
      outcome: state.outcome,
      winner: state.winner === null ? null : actorView(state.winner),
      finalPrice: state.finalPrice,
      currency: state.currency,
      bidCount: state.bidCount,
      endedAt: new Date(now).toISOString(),
    },
  };
}

/** Ends a locked live auction whose end has passed (the caller checked): sold or unsold. */
export const endDue: Transition = async (tx, ctx, loaded, now) => {
  const saved = await saveTransition(tx, loaded, now, (state) => {
    endAuction(state);
    return { endedAt: now };
  });
  return { row: saved, change: endedChange(ctx, loaded.row, loaded.state, now) };
};
