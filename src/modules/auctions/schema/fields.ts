import { Type } from 'typebox';
import { ROOM_ID_PATTERN } from '../../../core/auth/room-id.ts';
import { oneOf } from '../../../core/http/schemas.ts';
import { idPattern } from '../ids.ts';

/*
 * The fields an auction and its bids are made of, shared by the resources (auction.ts, bid.ts) and the
 * module's configuration (config.ts).
 */

/** Amounts are integers in minor units (cents); above this they are refused. */
export const MAX_AMOUNT = 1_000_000_000_000;
export const STATUSES = ['draft', 'scheduled', 'live', 'ended', 'cancelled'] as const;
export const OUTCOMES = ['sold', 'unsold', 'bought_now'] as const;

export const AuctionId = Type.String({ pattern: idPattern('auction'), description: 'auc_...' });
export const RoomId = Type.String({ pattern: ROOM_ID_PATTERN, description: 'The room the auction runs in' });

const MINOR_UNITS = 'Integer amount in minor units of the currency (e.g. cents), at most 10^12';
export const Money = Type.Integer({ minimum: 0, maximum: MAX_AMOUNT, description: MINOR_UNITS });
export const PositiveMoney = Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, description: MINOR_UNITS });

export const Currency = Type.String({
  pattern: '^[A-Z]{3}$',
  description: 'ISO 4217 currency code, e.g. EUR',
});

export const IncrementRow = Type.Object(
  {
    from: Money,
    increment: PositiveMoney,
  },
  {
    title: 'PriceIncrement',
    description: 'From this price on, each bid is at least this much higher',
    additionalProperties: false,
  },
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
  {
    title: 'SoftClose',
    description: 'How a bid near the end moves the end of an auction',
    additionalProperties: false,
  },
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

export const ClientBidId = Type.String({
  pattern: '^[A-Za-z0-9_.:-]{1,64}$',
  description: "The bidder's own id for this bid: a retry with it answers with the first result",
});
