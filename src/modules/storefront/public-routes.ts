import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { browserOrigin } from '../../core/auth/product-access.ts';
import type { ServiceContext, Services } from '../../core/context.ts';
import { cacheable } from '../../core/http/caching.ts';
import { requestContext } from '../../core/http/context.ts';
import {
  AuctionParams,
  PublicAuction,
  PublicAuctionPage,
  PublicAuctionsQuery,
  PublicBrand,
} from './public-schema.ts';
import { getPublicAuction } from './verbs/get-public-auction.ts';
import { getPublicBrand } from './verbs/get-public-brand.ts';
import { listPublicAuctions } from './verbs/list-public-auctions.ts';

/** Public answers may be cached for a second: a change shows within it. */
const MAX_AGE_SECONDS = 1;
const VARY = ['Origin', 'X-SVC-Product-Key'] as const;

const publicRoute = <S extends object>(schema: S) => ({
  config: { module: 'storefront', auth: { credentials: ['product'] as const } },
  schema: {
    tags: ['public'],
    ...schema,
  },
});

/**
 * `/api/public/*`: what a storefront page or a white-label app reads with its publishable product key
 * (X-SVC-Product-Key): brand metadata and published auctions, never a private field. Every answer has an
 * ETag and Cache-Control; `If-None-Match` gets 304.
 */
export async function storefrontPublicRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const reply304 = { 304: { description: 'Not modified: the If-None-Match ETag is current', type: 'null' } };
  /**
   * The verb's answer for the key's storefront, `input` with the caller's origin, cacheable (a refusal of
   * the caller's origin goes without the CORS header: core's rule).
   */
  const send = async <I extends object, T>(
    request: FastifyRequest,
    reply: FastifyReply,
    verb: (ctx: ServiceContext, input: I & { origin: string | undefined }) => Promise<T>,
    input: I,
  ) => {
    const answer = await verb(requestContext(request, services), {
      ...input,
      origin: browserOrigin(request),
    });
    return cacheable(request, reply, answer, { maxAgeSeconds: MAX_AGE_SECONDS, varyOn: VARY });
  };

  typed.get(
    '/api/public/brand',
    publicRoute({
      operationId: 'getPublicBrand',
      summary: "The brand of the key's storefront (its operator's over the tenant's, field by field)",
      response: { 200: PublicBrand, ...reply304 },
    }),
    async (request, reply) => send(request, reply, getPublicBrand, {}),
  );
  typed.get(
    '/api/public/auctions',
    publicRoute({
      operationId: 'listPublicAuctions',
      summary: 'Published auctions: live first (ending soonest), then scheduled, then recently ended',
      querystring: PublicAuctionsQuery,
      response: { 200: PublicAuctionPage, ...reply304 },
    }),
    async (request, reply) => send(request, reply, listPublicAuctions, request.query),
  );
  typed.get(
    '/api/public/auctions/:auctionId',
    publicRoute({
      operationId: 'getPublicAuction',
      summary: 'One published auction: price, bids, end, outcome and whether the reserve is met',
      params: AuctionParams,
      response: { 200: PublicAuction, ...reply304 },
    }),
    async (request, reply) => send(request, reply, getPublicAuction, { auctionId: request.params.auctionId }),
  );
}
