import type { Principal } from '../../core/auth/principal.ts';
import type { AuctionView } from './auction-row.ts';

/*
 * Who sees what of an auction. The reserve amount is the seller's: only the tenant's servers (API keys) and
 * its console users (hosted JWTs) see `reservePrice`. Everyone else (session tokens, the realtime gateway,
 * MCP and actions called with a session token) sees `hasReserve` and `reserveMet`, as the public API does.
 * No bidder's maximum is in any of these shapes: only the bidder's own bid answer carries it.
 */

/** Whether `principal` is one of the tenant's servers or console users: they see the reserve amount. */
export function seesReserve(principal: Principal | undefined): boolean {
  return principal?.kind === 'api_key' || principal?.kind === 'hosted_user';
}

/** The auction as an end user may see it: without the reserve amount. */
export function endUserAuction(view: AuctionView): AuctionView {
  const { reservePrice: _reserve, ...shown } = view;
  return shown;
}

/** The auction as `principal` may see it. */
export function auctionFor(principal: Principal | undefined, view: AuctionView): AuctionView {
  return seesReserve(principal) ? view : endUserAuction(view);
}

/**
 * A realtime frame as room members get it (and as the auction's log keeps it for resuming sockets): the
 * `auction` it carries without the reserve amount, and an `auction.updated`'s `changes` saying only whether
 * a reserve is set. Events (webhooks, the tenant's servers) keep the whole change.
 */
export function endUserFrame(frame: Record<string, unknown>): Record<string, unknown> {
  const shown: Record<string, unknown> = { ...frame };
  const auction = frame.auction;
  if (isObject(auction) && 'reservePrice' in auction) {
    const { reservePrice, ...rest } = auction;
    shown.auction = 'hasReserve' in rest ? rest : { ...rest, hasReserve: reservePrice !== null };
  }
  const changes = frame.changes;
  if (isObject(changes) && 'reservePrice' in changes) {
    const { reservePrice, ...rest } = changes;
    shown.changes = { ...rest, hasReserve: reservePrice !== null };
  }
  return shown;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
