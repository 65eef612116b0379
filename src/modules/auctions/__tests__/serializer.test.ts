import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { ErrorResponse } from '../../../core/http/schemas.ts';
import { BidResult } from '../schema/bid.ts';
import { plainSerializers, withoutUnions } from '../schema/serializer.ts';

const bidder = { type: 'end_user', id: 'idp:u1', identityProvider: 'idp', displayName: 'U 1' };
const time = '2030-01-01T00:00:00.000Z';

function auction(over: Record<string, unknown>) {
  return {
    id: 'auc_1',
    roomId: 'r1',
    title: 't',
    description: '',
    currency: 'EUR',
    startingPrice: 100,
    hasReserve: false,
    reserveMet: true,
    buyNowPrice: null,
    buyNowAvailable: false,
    increments: [{ from: 0, increment: 5 }],
    startsAt: null,
    durationSeconds: 60,
    softClose: { windowSeconds: 10, mode: 'extend', extendSeconds: 10, maxExtensions: 3 },
    suddenDeath: false,
    published: true,
    metadata: { a: 'b', n: 1 },
    status: 'live',
    currentPrice: null,
    minimumBid: 100,
    leadingBid: null,
    bidCount: 0,
    startedAt: time,
    endsAt: time,
    extensions: 0,
    seq: 3,
    outcome: null,
    winner: null,
    finalPrice: null,
    endedAt: null,
    createdAt: time,
    updatedAt: time,
    ...over,
  };
}

function result(over: Record<string, unknown>, bidOver: Record<string, unknown> = {}) {
  return {
    bid: {
      id: 'bid_1',
      auctionId: 'auc_1',
      seq: 4,
      kind: 'bid',
      bidder,
      amount: 120,
      maxAmount: 150,
      priceAfter: 120,
      leading: true,
      clientBidId: null,
      createdAt: time,
      ...bidOver,
    },
    auction: auction(over),
  };
}

const answers = [
  result({}),
  result(
    {
      currentPrice: 120,
      reservePrice: 500,
      hasReserve: true,
      reserveMet: false,
      buyNowPrice: 900,
      leadingBid: { bidId: 'bid_1', bidder, amount: 120 },
      status: 'ended',
      outcome: 'sold',
      winner: { type: 'agent', id: 'idp:a', identityProvider: 'idp' },
      finalPrice: 120,
      endedAt: time,
      minimumBid: null,
    },
    { kind: 'buy_now', clientBidId: 'c-1' },
  ),
  // Extra fields are left out by both, as the schema says.
  result({ reservePrice: null, secret: 'x' }, { internal: 1 }),
];

describe('the bid answer serializer without unions', () => {
  test('writes every answer as the schema’s own serializer does', () => {
    const own = SerializerSelector()({}, {})({ schema: BidResult } as never);
    const plain = plainSerializers()({ schema: BidResult });
    for (const answer of answers) assert.equal(plain(answer), own(answer));
    const error = {
      error: 'conflict',
      message: 'm',
      requestId: 'r',
      details: [{ field: 'f', message: 'x' }],
    };
    const ownError = SerializerSelector()({}, {})({ schema: ErrorResponse } as never);
    assert.equal(plainSerializers()({ schema: ErrorResponse })(error), ownError(error));
  });

  test('keeps unions it cannot decide by type alone', () => {
    const mixed = { anyOf: [{ type: 'string' }, { type: 'integer' }] };
    assert.deepEqual(withoutUnions(mixed), mixed);
    assert.deepEqual(withoutUnions({ anyOf: [{ type: 'string', const: 'a' }, { type: 'null' }] }), {
      type: 'string',
      const: 'a',
      nullable: true,
    });
    assert.deepEqual(
      withoutUnions({
        anyOf: [
          { type: 'string', const: 'a' },
          { type: 'string', const: 'b' },
        ],
      }),
      {
        type: 'string',
      },
    );
  });
});
