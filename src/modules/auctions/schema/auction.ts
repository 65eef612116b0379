import { type TObject, type TProperties, Type } from 'typebox';
import { PAGE_QUERY, Page } from '../../../core/http/pagination.ts';
import { oneOf } from '../../../core/http/schemas.ts';
import { Actor } from '../../../core/tenancy/actors.ts';
import {
  AuctionId,
  Currency,
  Increments,
  Metadata,
  Money,
  OUTCOMES,
  PositiveMoney,
  RoomId,
  SoftClose,
  STATUSES,
} from './fields.ts';

/** The auction resource, its list and the bodies that create and change one. */

const Time = Type.String({ format: 'date-time' });
const TimeOrNull = Type.Union([Time, Type.Null()]);

export const LeadingBid = Type.Object(
  {
    bidId: Type.String(),
    bidder: Actor,
    amount: Money,
  },
  {
    title: 'LeadingBid',
    description: 'The bid that leads and the price its bidder pays now (never its maximum)',
  },
);

export const Auction = Type.Object(
  {
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
    startsAt: TimeOrNull,
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
    startedAt: TimeOrNull,
    endsAt: TimeOrNull,
    extensions: Type.Integer({ minimum: 0 }),
    seq: Type.Integer({ minimum: 0, description: 'Number of the last accepted bid or state change' }),
    outcome: Type.Union([oneOf(OUTCOMES), Type.Null()]),
    winner: Type.Union([Actor, Type.Null()], { description: 'Who won, once it ended sold' }),
    finalPrice: Type.Union([Money, Type.Null()]),
    endedAt: TimeOrNull,
    createdAt: Time,
    updatedAt: Time,
  },
  {
    title: 'Auction',
    description:
      'An auction in a room: its terms, where it stands (price, leading bid, end) and, once ended, its outcome',
  },
);

export const AuctionPage = Page(Auction, 'AuctionPage', 'A page of auctions, newest first');

const Title = Type.String({ minLength: 1, maxLength: 200 });
const Description = Type.String({ maxLength: 5000 });
const DurationSeconds = Type.Integer({
  minimum: 1,
  maximum: 30 * 86_400,
  description: 'How long the auction runs once live, before any extension',
});
const StartsAt = Type.String({ format: 'date-time', description: 'When the scheduler starts it' });

export const CreateAuctionInput = Type.Object(
  {
    roomId: RoomId,
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
  },
  {
    title: 'CreateAuctionInput',
    description: 'A new auction, in draft; increments and soft close default to the tenant’s configuration',
    additionalProperties: false,
  },
);

export const UpdateAuctionInput = Type.Object(
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
  {
    title: 'UpdateAuctionInput',
    description: 'The terms to change of an auction in draft or scheduled; null removes an optional term',
    additionalProperties: false,
  },
);

export const ScheduleAuctionInput = Type.Object(
  { startsAt: Type.Optional(StartsAt) },
  {
    title: 'ScheduleAuctionInput',
    description: 'When the scheduler starts the auction (default: the startsAt set on it before)',
    additionalProperties: false,
  },
);

export const CancelAuctionInput = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 500 })) },
  {
    title: 'CancelAuctionInput',
    description: 'Why the auction is cancelled (told in `auction.cancelled`)',
    additionalProperties: false,
  },
);

/** An auction named by id: what the verbs on one auction take. */
export const AuctionRef = Type.Object({ auctionId: AuctionId }, { additionalProperties: false });

/** What a verb on one auction takes (an action's arguments): the auction's id and its route's body. */
export function onAuction<P extends TProperties>(body: TObject<P>) {
  return Type.Object({ auctionId: AuctionId, ...body.properties }, { additionalProperties: false });
}

export const UpdateAuctionArguments = onAuction(UpdateAuctionInput);
export const ScheduleAuctionArguments = onAuction(ScheduleAuctionInput);
export const CancelAuctionArguments = onAuction(CancelAuctionInput);

export const ListAuctionsQuery = Type.Object(
  {
    status: Type.Optional(oneOf(STATUSES)),
    roomId: Type.Optional(RoomId),
    published: Type.Optional(Type.Boolean()),
    ...PAGE_QUERY,
  },
  { additionalProperties: false },
);

export const DeletedAuction = Type.Object(
  { id: Type.String(), deleted: Type.Literal(true) },
  { title: 'DeletedAuction', description: 'A draft auction deleted for good' },
);
