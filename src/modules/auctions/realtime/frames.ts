import { Type } from 'typebox';
import { NotFound } from '../../../core/http/errors.ts';
import { defineFrame, encodeFrame, RoomField } from '../../../core/realtime/contributions.ts';
import { readAuction } from '../auction-row.ts';
import { AuctionId, ClientBidId, Currency, Money } from '../schema/fields.ts';
import { placeBid } from '../verbs/place-bid.ts';

/**
 * `auction.bid`: a bid through the same verb and rules as `POST /v1/auctions/:id/bids`. The room sees it
 * as `auction.bid` in seq order like every bid; the bidder also gets `auction.bid.result` (with `ref` and
 * its own maximum); a refusal comes back as `error` with the same code and details as REST.
 */
export const auctionBidFrame = defineFrame({
  type: 'auction.bid',
  fields: {
    room: RoomField,
    auctionId: AuctionId,
    amount: Type.Optional(Money),
    maxAmount: Type.Optional(Money),
    currency: Type.Optional(Currency),
    clientBidId: Type.Optional(ClientBidId),
  },
  access: { module: 'auctions', scope: 'auctions:bid' },
  async handle(host, connection, frame) {
    host.membershipIn(connection, frame.room);
    const ctx = host.context(connection);
    const auction = await readAuction(ctx, frame.auctionId);
    if (auction.room_id !== frame.room) throw new NotFound('auction', frame.auctionId);
    const placed = await placeBid(ctx, {
      auctionId: frame.auctionId,
      ...(frame.amount === undefined ? {} : { amount: frame.amount }),
      ...(frame.maxAmount === undefined ? {} : { maxAmount: frame.maxAmount }),
      ...(frame.currency === undefined ? {} : { currency: frame.currency }),
      ...(frame.clientBidId === undefined ? {} : { clientBidId: frame.clientBidId }),
    });
    connection.send(
      encodeFrame({
        type: 'auction.bid.result',
        room: frame.room,
        auctionId: frame.auctionId,
        ...(frame.ref === undefined ? {} : { ref: frame.ref }),
        bid: placed.bid,
        currentPrice: placed.auction.currentPrice,
        leadingBid: placed.auction.leadingBid,
      }),
    );
  },
  errorRef: (frame) => frame.clientBidId,
});
