import { Type } from 'typebox';
import { ROOM_ID_PATTERN } from '../../core/auth/room-id.ts';
import { oneOf } from '../../core/http/schemas.ts';
import { idPattern } from '../../core/ids.ts';
import { Actor } from '../../core/tenancy/actors.ts';

/** Amounts are integers in minor units (cents); above this they are refused. */
export const MAX_AMOUNT = 1_000_000_000_000;
export const MAX_PAGE = 100;
export const STATUSES = ['draft', 'scheduled', 'live', 'ended', 'cancelled'] as const;
export const OUTCOMES = ['sold', 'unsold', 'bought_now'] as const;

export const AuctionId = Type.String({ pattern: idPattern('auction'), description: 'auc_...' });
export const RoomId = Type.String({ pattern: ROOM_ID_PATTERN, description: 'The room the auction runs in' });

export const Money = Type.Integer({
  minimum: 0,
  maximum: MAX_AMOUNT,
  description: 'Integer amount in minor units of the currency (e.g. cents), at most 10^12',
});
const PositiveMoney = Type.Integer({
  minimum: 1,
  maximum: MAX_AMOUNT,
  description: 'Integer amount in minor units of the currency (e.g. cents), at most 10^12',
});

export const Currency = Type.String({
  pattern: '^[A-Z]{3}$',
  description: 'ISO 4217 currency code, e.g. EUR',
});

export const IncrementRow = Type.Object(
  {
    from: Money,
    increment: PositiveMoney,
  },
  { additionalProperties: false, description: 'From this price on, each bid is at least this much higher' },
);
export const Increments = Type.Array(IncrementRow, {
  minItems: 1,
  maxItems: 50,
  description: 'Rows by ascending `from`; the first starts at 0',
});

export const SoftClose = Type.Object(
  {
    windowSeconds: Type.Integer({
      minimum: 0,
      maximum: 86_400,
      description: 'A bid this close to the end moves the end (0: never)',
    }),
    mode: oneOf(['extend', 'reset'] as const, {
      description: 'extend: endsAt += extendSeconds; reset: endsAt = now + extendSeconds',
    }),
    extendSeconds: Type.Integer({ minimum: 1, maximum: 86_400 }),
    maxExtensions: Type.Integer({ minimum: 0, maximum: 1000 }),
  },
  { additionalProperties: false },
);

const META_KEY = '^[A-Za-z0-9_.:-]{1,40}$';
export const Metadata = Type.Object(
  {},
  {
    maxProperties: 50,
    propertyNames: { pattern: META_KEY },
    additionalProperties: Type.Union([Type.String({ maxLength: 256 }), Type.Number(), Type.Boolean()]),
    description: 'Up to 50 keys (<= 40 chars); values are strings (<= 256 chars), numbers or booleans',
  },
);

const Title = Type.String({ minLength: 1, maxLength: 200 });
const Description = Type.String({ maxLength: 5000 });
const DurationSeconds = Type.Integer({
  minimum: 1,
  maximum: 30 * 86_400,
  description: 'How long the auction runs once live, before any extension',
});
const StartsAt = Type.String({ format: 'date-time', description: 'When the scheduler starts it' });

export const ClientBidId = Type.String({
  pattern: '^[A-Za-z0-9_.:-]{1,64}$',
  description: "The bidder's own id for this bid: a retry with it answers with the first result",
});

export const ActorView = Type.Object({
  id: Type.String({ description: 'Internal actor id' }),
  type: Type.String(),
  externalId: Type.String({ description: '<provider>:<external_id>' }),
});

export const LeadingBid = Type.Object({
  bidId: Type.String(),
  bidder: ActorView,
  amount: Money,
});

export const Auction = Type.Object({
  id: Type.String(),
  roomId: Type.String(),
  title: Type.String(),
  description: Type.String(),
  currency: Type.String(),
  startingPrice: Money,
  reservePrice: Type.Optional(
    Type.Union([Money, Type.Null()], {
      description:
        "The reserve amount (null: none). Only for the tenant's servers (API keys) and console users: absent for session tokens, realtime frames and every other end-user answer, which get `hasReserve` and `reserveMet`",
    }),
  ),
  hasReserve: Type.Boolean({
    description: 'Whether the auction has a reserve (its amount is shown to servers only)',
  }),
  reserveMet: Type.Boolean({
    description: 'Whether the leading bid meets the reserve (true without one once a bid leads)',
  }),
  buyNowPrice: Type.Union([Money, Type.Null()]),
  buyNowAvailable: Type.Boolean({ description: 'Buy-now ends the auction at once right now' }),
  increments: Increments,
  startsAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  durationSeconds: Type.Integer(),
  softClose: SoftClose,
  suddenDeath: Type.Boolean(),
  published: Type.Boolean(),
  metadata: Type.Object({}, { additionalProperties: true }),
  status: oneOf(STATUSES),
  currentPrice: Type.Union([Money, Type.Null()], { description: 'Null until the first bid' }),
  minimumBid: Type.Union([Money, Type.Null()], { description: 'The lowest bid accepted now' }),
  leadingBid: Type.Union([LeadingBid, Type.Null()]),
  bidCount: Type.Integer({ minimum: 0 }),
  startedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  endsAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  extensions: Type.Integer({ minimum: 0 }),
  seq: Type.Integer({ minimum: 0, description: 'Number of the last accepted bid or state change' }),
  outcome: Type.Union([oneOf(OUTCOMES), Type.Null()]),
  winner: Type.Union([ActorView, Type.Null()]),
  finalPrice: Type.Union([Money, Type.Null()]),
  endedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const AuctionPage = Type.Object({
  data: Type.Array(Auction),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});

export const Bid = Type.Object({
  id: Type.String(),
  auctionId: Type.String(),
  seq: Type.Integer({ description: 'The auction seq this bid took' }),
  kind: oneOf(['bid', 'buy_now'] as const),
  bidder: ActorView,
  amount: Money,
  priceAfter: Money,
  leading: Type.Boolean({ description: 'Whether this bid led once it was decided' }),
  clientBidId: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
});

export const BidPage = Type.Object({
  data: Type.Array(Bid, { description: 'Newest first' }),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});

export const BidResult = Type.Object({
  bid: Type.Object({ ...Bid.properties, maxAmount: Money }),
  auction: Auction,
});

const AuctionFields = {
  title: Title,
  description: Type.Optional(Description),
  currency: Currency,
  startingPrice: Money,
  reservePrice: Type.Optional(Money),
  buyNowPrice: Type.Optional(PositiveMoney),
  increments: Type.Optional(Increments),
  startsAt: Type.Optional(StartsAt),
  durationSeconds: DurationSeconds,
  softClose: Type.Optional(SoftClose),
  suddenDeath: Type.Optional(Type.Boolean({ description: 'No extensions at all' })),
  published: Type.Optional(Type.Boolean({ description: 'Listed on the public surface' })),
  metadata: Type.Optional(Metadata),
};

export const CreateAuctionBody = Type.Object(
  { roomId: RoomId, ...AuctionFields },
  { additionalProperties: false },
);
export const CreateAuctionInput = CreateAuctionBody;

export const UpdateAuctionBody = Type.Object(
  {
    title: Type.Optional(Title),
    description: Type.Optional(Description),
    currency: Type.Optional(Currency),
    startingPrice: Type.Optional(Money),
    reservePrice: Type.Optional(Type.Union([Money, Type.Null()])),
    buyNowPrice: Type.Optional(Type.Union([PositiveMoney, Type.Null()])),
    increments: Type.Optional(Type.Union([Increments, Type.Null()])),
    startsAt: Type.Optional(Type.Union([StartsAt, Type.Null()])),
    durationSeconds: Type.Optional(DurationSeconds),
    softClose: Type.Optional(Type.Union([SoftClose, Type.Null()])),
    suddenDeath: Type.Optional(Type.Boolean()),
    published: Type.Optional(Type.Boolean()),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export const UpdateAuctionInput = Type.Object(
  { auctionId: AuctionId, ...UpdateAuctionBody.properties },
  { additionalProperties: false },
);

export const AuctionRef = Type.Object({ auctionId: AuctionId }, { additionalProperties: false });

export const ScheduleBody = Type.Object(
  { startsAt: Type.Optional(StartsAt) },
  { additionalProperties: false },
);
export const ScheduleInput = Type.Object(
  { auctionId: AuctionId, ...ScheduleBody.properties },
  { additionalProperties: false },
);

export const CancelBody = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 500 })) },
  { additionalProperties: false },
);
export const CancelInput = Type.Object(
  { auctionId: AuctionId, ...CancelBody.properties },
  { additionalProperties: false },
);

export const PlaceBidBody = Type.Object(
  {
    amount: Type.Optional(Money),
    maxAmount: Type.Optional(Money),
    currency: Type.Optional(Currency),
    clientBidId: Type.Optional(ClientBidId),
    actor: Type.Optional(Actor),
  },
  {
    additionalProperties: false,
    description:
      '`amount` bids that price; `maxAmount` bids by proxy up to that maximum; with an API key, `actor` names the bidder',
  },
);
export const PlaceBidInput = Type.Object(
  { auctionId: AuctionId, ...PlaceBidBody.properties },
  { additionalProperties: false },
);

export const BuyNowBody = Type.Object(
  {
    clientBidId: Type.Optional(ClientBidId),
    actor: Type.Optional(Actor),
  },
  { additionalProperties: false },
);
export const BuyNowInput = Type.Object(
  { auctionId: AuctionId, ...BuyNowBody.properties },
  { additionalProperties: false },
);

export const ListAuctionsQuery = Type.Object(
  {
    status: Type.Optional(oneOf(STATUSES)),
    roomId: Type.Optional(RoomId),
    published: Type.Optional(Type.Boolean()),
    cursor: Type.Optional(Type.String({ maxLength: 500 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 50 })),
  },
  { additionalProperties: false },
);
export const ListAuctionsInput = ListAuctionsQuery;

export const ListBidsQuery = Type.Object(
  {
    cursor: Type.Optional(Type.String({ maxLength: 500 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 50 })),
  },
  { additionalProperties: false },
);
export const ListBidsInput = Type.Object(
  { auctionId: AuctionId, ...ListBidsQuery.properties },
  { additionalProperties: false },
);

export const Deleted = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });

/** Modelled on common marketplace tables, in minor units of a two-decimal currency. */
export const DEFAULT_INCREMENTS = [
  { from: 0, increment: 5 },
  { from: 100, increment: 25 },
  { from: 500, increment: 50 },
  { from: 2_500, increment: 100 },
  { from: 10_000, increment: 250 },
  { from: 25_000, increment: 500 },
  { from: 50_000, increment: 1_000 },
  { from: 100_000, increment: 2_500 },
  { from: 250_000, increment: 5_000 },
  { from: 500_000, increment: 10_000 },
];

export const DEFAULT_SOFT_CLOSE = {
  windowSeconds: 30,
  mode: 'extend' as const,
  extendSeconds: 30,
  maxExtensions: 20,
};

export const AuctionsConfig = Type.Object(
  {
    increments: Type.Array(IncrementRow, {
      minItems: 1,
      maxItems: 50,
      default: DEFAULT_INCREMENTS,
      description: 'Default increment table of new auctions',
    }),
    softClose: Type.Object(SoftClose.properties, {
      additionalProperties: false,
      default: DEFAULT_SOFT_CLOSE,
      description: 'Default soft close of new auctions',
    }),
    maxLivePerRoom: Type.Integer({
      minimum: 1,
      maximum: 1000,
      default: 10,
      description: 'Auctions a room may have scheduled or live at once',
    }),
  },
  { additionalProperties: false },
);
