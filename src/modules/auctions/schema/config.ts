import { Type } from 'typebox';
import { IncrementRow, SoftClose } from './fields.ts';

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
  {
    title: 'AuctionsConfig',
    description:
      "A tenant's configuration of the auctions module: the defaults of new auctions and a room's limit",
    additionalProperties: false,
  },
);
