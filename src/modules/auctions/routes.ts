import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { type TSchema, Type } from 'typebox';
import type { Services } from '../../core/context.ts';
import { requestContext } from '../../core/http/context.ts';
import { IdempotencyHeaders } from '../../core/http/idempotency.ts';
import { PageQuery } from '../../core/http/pagination.ts';
import { errorRef } from '../../core/http/schemas.ts';
import {
  Auction,
  AuctionPage,
  CancelAuctionInput,
  CreateAuctionInput,
  DeletedAuction,
  ListAuctionsQuery,
  ScheduleAuctionInput,
  UpdateAuctionInput,
} from './schema/auction.ts';
import { BidPage, BidResult, BuyNowInput, PlaceBidInput } from './schema/bid.ts';
import { AuctionId } from './schema/fields.ts';
import { plainSerializers } from './schema/serializer.ts';
import { buyNow } from './verbs/buy-now.ts';
import { cancelAuction } from './verbs/cancel-auction.ts';
import { createAuction } from './verbs/create-auction.ts';
import { deleteAuction } from './verbs/delete-auction.ts';
import { getAuction } from './verbs/get-auction.ts';
import { listAuctions } from './verbs/list-auctions.ts';
import { listBids } from './verbs/list-bids.ts';
import { placeBid } from './verbs/place-bid.ts';
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
const params = Type.Object({ auctionId: AuctionId });

const TRANSITION_409 = errorRef(
  'The auction’s status does not allow this (`details[0].code` `invalid_transition`, naming the status).',
);
const BID_409 = errorRef(
  'The bid was refused by the rules: `details[0].code` is `auction_not_live`, `bid_too_low`, `self_outbid` or `buy_now_unavailable`; the next entries give the current price and the minimum bid.',
);
const BID_400 = errorRef(
  'The bid is malformed: `details[0].code` is e.g. `currency_mismatch`, `amount_required` or `amount_above_max`; amounts must be integers of at most 10^12 minor units.',
);

/** A route's options: who may call it (`config`), and its OpenAPI entry: operation, summary and schemas (the tag is the module's). */
function route<C extends object, S extends object>(
  config: C,
  operationId: string,
  summary: string,
  schemas: S,
) {
  return { config, schema: { operationId, summary, tags: ['auctions'], ...schemas } };
}

/**
 * A change of one auction (`:auctionId`) that answers the auction: a write, refused with a 409 when the
 * auction's status does not allow it (or for `conflict`'s causes).
 */
function auctionChange<S extends object>(
  operationId: string,
  summary: string,
  schemas: S,
  conflict: TSchema = TRANSITION_409,
) {
  return route(write, operationId, summary, {
    params,
    ...schemas,
    response: { 200: Auction, 409: conflict },
  });
}

/** A bid on one auction (`:auctionId`): safe to retry under its key; 201 with the result, or a refusal. */
function bidRoute<B extends TSchema, R extends object>(
  operationId: string,
  summary: string,
  body: B,
  refusals: R,
) {
  return {
    ...route(bid, operationId, summary, {
      headers: IdempotencyHeaders,
      params,
      body,
      response: { 201: BidResult, ...refusals },
    }),
    serializerCompiler: plainSerializers(),
  };
}

/** Answers `201 Created` with what the verb made. */
async function created<T>(reply: FastifyReply, made: Promise<T>): Promise<T> {
  const result = await made;
  reply.status(201);
  return result;
}

export async function auctionRoutes(app: FastifyInstance, services: Services) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const ctx = (request: Parameters<typeof requestContext>[0]) => requestContext(request, services);

  typed.post(
    '/v1/auctions',
    route(write, 'createAuction', 'Create an auction (in draft) in a room', {
      body: CreateAuctionInput,
      response: { 201: Auction },
    }),
    async (request, reply) => created(reply, createAuction(ctx(request), request.body)),
  );

  typed.get(
    '/v1/auctions',
    route(read, 'listAuctions', 'List auctions, newest first; filter by status, roomId, published', {
      querystring: ListAuctionsQuery,
      response: { 200: AuctionPage },
    }),
    async (request) => listAuctions(ctx(request), request.query),
  );

  typed.get(
    '/v1/auctions/:auctionId',
    route(read, 'getAuction', 'Get an auction', { params, response: { 200: Auction } }),
    async (request) => getAuction(ctx(request), request.params),
  );

  typed.patch(
    '/v1/auctions/:auctionId',
    auctionChange('updateAuction', 'Edit an auction in draft or scheduled (null removes an optional term)', {
      body: UpdateAuctionInput,
    }),
    async (request) => updateAuction(ctx(request), { ...request.body, ...request.params }),
  );

  typed.delete(
    '/v1/auctions/:auctionId',
    route(write, 'deleteAuction', 'Delete a draft auction (anything later is cancelled instead)', {
      params,
      response: { 200: DeletedAuction, 409: TRANSITION_409 },
    }),
    async (request) => deleteAuction(ctx(request), request.params),
  );

  typed.post(
    '/v1/auctions/:auctionId/schedule',
    auctionChange(
      'scheduleAuction',
      'Schedule a draft auction to start at startsAt',
      { body: ScheduleAuctionInput },
      errorRef('Not a draft, or the room has its configured maximum of scheduled and live auctions.'),
    ),
    async (request) => scheduleAuction(ctx(request), { ...request.body, ...request.params }),
  );

  typed.post(
    '/v1/auctions/:auctionId/start',
    auctionChange(
      'startAuction',
      'Start a draft or scheduled auction now',
      {},
      errorRef('Not draft or scheduled, or the room has its maximum of live auctions.'),
    ),
    async (request) => startAuction(ctx(request), request.params),
  );

  typed.post(
    '/v1/auctions/:auctionId/cancel',
    auctionChange(
      'cancelAuction',
      'Cancel a draft, scheduled or live auction (live with bids: needs auctions:admin)',
      { body: CancelAuctionInput },
    ),
    async (request) => cancelAuction(ctx(request), { ...request.body, ...request.params }),
  );

  typed.post(
    '/v1/auctions/:auctionId/bids',
    bidRoute('placeBid', 'Place a bid (amount, proxy maxAmount, or both)', PlaceBidInput, {
      400: BID_400,
      409: BID_409,
    }),
    async (request, reply) => created(reply, placeBid(ctx(request), { ...request.body, ...request.params })),
  );

  typed.get(
    '/v1/auctions/:auctionId/bids',
    route(read, 'listBids', 'List an auction’s accepted bids, newest first', {
      params,
      querystring: PageQuery,
      response: { 200: BidPage },
    }),
    async (request) => listBids(ctx(request), { ...request.query, ...request.params }),
  );

  typed.post(
    '/v1/auctions/:auctionId/buy-now',
    bidRoute(
      'buyNow',
      'Buy at the buy-now price while it is offered; the auction ends at once',
      BuyNowInput,
      { 409: BID_409 },
    ),
    async (request, reply) => created(reply, buyNow(ctx(request), { ...request.body, ...request.params })),
  );
}
