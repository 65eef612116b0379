import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../core/context.ts';
import { requestContext } from '../../core/http/context.ts';
import { IdempotencyHeaders } from '../../core/http/idempotency.ts';
import { errorRef } from '../../core/http/schemas.ts';
import {
  Auction,
  AuctionId,
  AuctionPage,
  BidPage,
  BidResult,
  BuyNowBody,
  CancelBody,
  CreateAuctionBody,
  Deleted,
  ListAuctionsQuery,
  ListBidsQuery,
  PlaceBidBody,
  ScheduleBody,
  UpdateAuctionBody,
} from './schema.ts';
import { cancelAuction } from './verbs/cancel-auction.ts';
import { createAuction } from './verbs/create-auction.ts';
import { deleteAuction } from './verbs/delete-auction.ts';
import { getAuction } from './verbs/get-auction.ts';
import { listAuctions } from './verbs/list-auctions.ts';
import { listBids } from './verbs/list-bids.ts';
import { buyNow, placeBid } from './verbs/place-bid.ts';
import { scheduleAuction } from './verbs/schedule-auction.ts';
import { startAuction } from './verbs/start-auction.ts';
import { updateAuction } from './verbs/update-auction.ts';

const sessionsToo = ['api_key', 'session'] as const;
const read = { module: 'auctions', auth: { credentials: sessionsToo, scope: 'auctions:read' } };
const write = { module: 'auctions', auth: { credentials: ['api_key'] as const, scope: 'auctions:write' } };
// A retried bid (or buy-now) with the same Idempotency-Key gets the first answer again; clientBidId does
// the same in the body, for clients (and frames) that cannot send headers.
const bid = {
  module: 'auctions',
  idempotent: true,
  auth: { credentials: sessionsToo, scope: 'auctions:bid' },
};
const Params = Type.Object({ auctionId: AuctionId });

const TRANSITION_409 = errorRef(
  'The auction’s status does not allow this (`details[0].code` `invalid_transition`, naming the status).',
);
const BID_409 = errorRef(
  'The bid was refused by the rules: `details[0].code` is `auction_not_live`, `bid_too_low`, `self_outbid` or `buy_now_unavailable`; the next entries give the current price and the minimum bid.',
);
const BID_400 = errorRef(
  'The bid is malformed: `details[0].code` is e.g. `currency_mismatch`, `amount_required` or `amount_above_max`; amounts must be integers of at most 10^12 minor units.',
);

export async function auctionRoutes(app: FastifyInstance, services: Services) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const ctx = (request: Parameters<typeof requestContext>[0]) => requestContext(request, services);

  typed.post(
    '/v1/auctions',
    {
      config: write,
      schema: {
        operationId: 'createAuction',
        summary: 'Create an auction (in draft) in a room',
        tags: ['auctions'],
        body: CreateAuctionBody,
        response: { 201: Auction },
      },
    },
    async (request, reply) => {
      const auction = await createAuction(ctx(request), request.body);
      reply.status(201);
      return auction;
    },
  );

  typed.get(
    '/v1/auctions',
    {
      config: read,
      schema: {
        operationId: 'listAuctions',
        summary: 'List auctions, newest first; filter by status, roomId, published',
        tags: ['auctions'],
        querystring: ListAuctionsQuery,
        response: { 200: AuctionPage },
      },
    },
    async (request) => listAuctions(ctx(request), request.query),
  );

  typed.get(
    '/v1/auctions/:auctionId',
    {
      config: read,
      schema: {
        operationId: 'getAuction',
        summary: 'Get an auction',
        tags: ['auctions'],
        params: Params,
        response: { 200: Auction },
      },
    },
    async (request) => getAuction(ctx(request), request.params),
  );

  typed.patch(
    '/v1/auctions/:auctionId',
    {
      config: write,
      schema: {
        operationId: 'updateAuction',
        summary: 'Edit an auction in draft or scheduled (null removes an optional term)',
        tags: ['auctions'],
        params: Params,
        body: UpdateAuctionBody,
        response: { 200: Auction, 409: TRANSITION_409 },
      },
    },
    async (request) => updateAuction(ctx(request), { ...request.body, ...request.params }),
  );

  typed.delete(
    '/v1/auctions/:auctionId',
    {
      config: write,
      schema: {
        operationId: 'deleteAuction',
        summary: 'Delete a draft auction (anything later is cancelled instead)',
        tags: ['auctions'],
        params: Params,
        response: { 200: Deleted, 409: TRANSITION_409 },
      },
    },
    async (request) => deleteAuction(ctx(request), request.params),
  );

  typed.post(
    '/v1/auctions/:auctionId/schedule',
    {
      config: write,
      schema: {
        operationId: 'scheduleAuction',
        summary: 'Schedule a draft auction to start at startsAt',
        tags: ['auctions'],
        params: Params,
        body: ScheduleBody,
        response: {
          200: Auction,
          409: errorRef(
            'Not a draft, or the room has its configured maximum of scheduled and live auctions.',
          ),
        },
      },
    },
    async (request) => scheduleAuction(ctx(request), { ...request.body, ...request.params }),
  );

  typed.post(
    '/v1/auctions/:auctionId/start',
    {
      config: write,
      schema: {
        operationId: 'startAuction',
        summary: 'Start a draft or scheduled auction now',
        tags: ['auctions'],
        params: Params,
        response: {
          200: Auction,
          409: errorRef('Not draft or scheduled, or the room has its maximum of live auctions.'),
        },
      },
    },
    async (request) => startAuction(ctx(request), request.params),
  );

  typed.post(
    '/v1/auctions/:auctionId/cancel',
    {
      config: write,
      schema: {
        operationId: 'cancelAuction',
        summary: 'Cancel a draft, scheduled or live auction (live with bids: needs auctions:admin)',
        tags: ['auctions'],
        params: Params,
        body: CancelBody,
        response: { 200: Auction, 409: TRANSITION_409 },
      },
    },
    async (request) => cancelAuction(ctx(request), { ...request.body, ...request.params }),
  );

  typed.post(
    '/v1/auctions/:auctionId/bids',
    {
      config: bid,
      schema: {
        operationId: 'placeBid',
        summary: 'Place a bid (amount, proxy maxAmount, or both)',
        tags: ['auctions'],
        headers: IdempotencyHeaders,
        params: Params,
        body: PlaceBidBody,
        response: { 201: BidResult, 400: BID_400, 409: BID_409 },
      },
    },
    async (request, reply) => {
      const placed = await placeBid(ctx(request), { ...request.body, ...request.params });
      reply.status(201);
      return placed;
    },
  );

  typed.get(
    '/v1/auctions/:auctionId/bids',
    {
      config: read,
      schema: {
        operationId: 'listBids',
        summary: 'List an auction’s accepted bids, newest first',
        tags: ['auctions'],
        params: Params,
        querystring: ListBidsQuery,
        response: { 200: BidPage },
      },
    },
    async (request) => listBids(ctx(request), { ...request.query, ...request.params }),
  );

  typed.post(
    '/v1/auctions/:auctionId/buy-now',
    {
      config: bid,
      schema: {
        operationId: 'buyNow',
        summary: 'Buy at the buy-now price while it is offered; the auction ends at once',
        tags: ['auctions'],
        headers: IdempotencyHeaders,
        params: Params,
        body: BuyNowBody,
        response: { 201: BidResult, 409: BID_409 },
      },
    },
    async (request, reply) => {
      const placed = await buyNow(ctx(request), { ...request.body, ...request.params });
      reply.status(201);
      return placed;
    },
  );
}
