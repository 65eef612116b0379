import type { RealtimeHooks } from '../../../core/realtime/contributions.ts';
import { frameOf, isAuctionEvent } from '../changes.ts';
import { auctionBidFrame } from './frames.ts';
import { auctionsJoin } from './join.ts';
import { auctionRoom } from './room.ts';

/**
 * Auctions on the realtime gateway: the `auction.bid` frame; `joined` carries where each auction of the
 * room stands and a resuming join gets what it missed; auction events reach rooms as `auction.*` frames in
 * each auction's seq order, never as generic `event` frames.
 */
export function auctionsRealtime(): RealtimeHooks {
  return {
    frames: [auctionBidFrame],
    join: auctionsJoin(),
    roomMessages: ['auction'],
    room: auctionRoom,
    relay: (event) => {
      if (!isAuctionEvent(event.type)) return undefined;
      return { k: 'auction', frame: frameOf({ type: event.type, data: event.data }) };
    },
  };
}
