import { Type } from 'typebox';
import { Page, PageQuery } from '../../../core/http/pagination.ts';
import { oneOf } from '../../../core/http/schemas.ts';
import { Actor } from '../../../core/tenancy/actors.ts';
import { Auction, onAuction } from './auction.ts';
import { ClientBidId, Currency, Money } from './fields.ts';

/** The bid resource, its list, the answer to a bid and the bodies that place one. */

const BID_FIELDS = {
  id: Type.String(),
  auctionId: Type.String(),
  seq: Type.Integer({ description: 'The auction seq this bid took' }),
  kind: oneOf(['bid', 'buy_now'] as const),
  bidder: Actor,
  amount: Money,
  priceAfter: Money,
  leading: Type.Boolean({ description: 'Whether this bid led once it was decided' }),
  clientBidId: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
};

export const Bid = Type.Object(BID_FIELDS, {
  title: 'Bid',
  description: 'An accepted bid as anyone reading the auction sees it: never its maximum',
});

export const BidPage = Page(Bid, 'BidPage', 'A page of an auction’s accepted bids, newest first');

export const OwnBid = Type.Object(
  { ...BID_FIELDS, maxAmount: Money },
  {
    title: 'OwnBid',
    description: 'An accepted bid as its bidder sees it, with the maximum it bid by proxy',
  },
);

export const BidResult = Type.Object(
  { bid: OwnBid, auction: Auction },
  { title: 'BidResult', description: 'The answer to a bid or buy-now: the bid, and the auction after it' },
);

export const PlaceBidInput = Type.Object(
  {
    amount: Type.Optional(Money),
    maxAmount: Type.Optional(Money),
    currency: Type.Optional(Currency),
    clientBidId: Type.Optional(ClientBidId),
    actor: Type.Optional(Actor),
  },
  {
    title: 'PlaceBidInput',
    description:
      '`amount` bids that price; `maxAmount` bids by proxy up to that maximum; with an API key, `actor` names the bidder',
    additionalProperties: false,
  },
);

export const BuyNowInput = Type.Object(
  {
    clientBidId: Type.Optional(ClientBidId),
    actor: Type.Optional(Actor),
  },
  {
    title: 'BuyNowInput',
    description: 'Buy at the buy-now price; with an API key, `actor` names the buyer',
    additionalProperties: false,
  },
);

export const PlaceBidArguments = onAuction(PlaceBidInput);
export const BuyNowArguments = onAuction(BuyNowInput);
export const ListBidsArguments = onAuction(PageQuery);
