import { ALL_WORKSPACES, defineAction, type ModuleManifest } from '../../core/modules/manifest.ts';
import { AUCTION_EVENTS } from './changes.ts';
import { auctionsIds } from './ids.ts';
import { auctionsRealtime } from './realtime/index.ts';
import { REJECTIONS_RETENTION } from './retention.ts';
import { auctionRoutes } from './routes.ts';
import { AuctionScheduler } from './scheduler.ts';
import {
  Auction,
  AuctionPage,
  AuctionRef,
  CancelAuctionArguments,
  CreateAuctionInput,
  ListAuctionsQuery,
} from './schema/auction.ts';
import { BidResult, PlaceBidArguments } from './schema/bid.ts';
import { AuctionsConfig } from './schema/config.ts';
import { cancelAuction } from './verbs/cancel-auction.ts';
import { createAuction } from './verbs/create-auction.ts';
import { getAuction } from './verbs/get-auction.ts';
import { listAuctions } from './verbs/list-auctions.ts';
import { placeBid } from './verbs/place-bid.ts';
import { startAuction } from './verbs/start-auction.ts';

export const auctionsModule: ModuleManifest = {
  name: 'auctions',
  title: 'Auctions',
  description:
    'Live auctions in rooms: proxy bids, reserve, buy-now, soft close, and a scheduler that starts and ends them exactly once.',
  version: '1.0.0',
  scopes: ['auctions:read', 'auctions:write', 'auctions:bid', 'auctions:admin'],
  sessionScopes: ['auctions:read', 'auctions:bid'],
  eventTypes: AUCTION_EVENTS,
  idPrefixes: auctionsIds.prefixes,
  configSchema: AuctionsConfig,
  routes: auctionRoutes,
  migrations: new URL('./migrations/', import.meta.url),
  hooks: (host) => ({ worker: new AuctionScheduler(host), realtime: auctionsRealtime() }),
  retention: [REJECTIONS_RETENTION],
  actions: [
    defineAction({
      name: 'list_auctions',
      title: 'List auctions',
      description: 'Auctions of the tenant, newest first, filtered by status, roomId and published.',
      input: ListAuctionsQuery,
      output: AuctionPage,
      scope: 'auctions:read',
      route: 'listAuctions',
      credentials: ['api_key', 'session'],
      access: 'read',
      confirmation: 'never',
      workspaceTypes: ALL_WORKSPACES,
      run: listAuctions,
    }),
    defineAction({
      name: 'get_auction',
      title: 'Get an auction',
      description: 'One auction by id: status, current price, leading bid, end time.',
      input: AuctionRef,
      output: Auction,
      scope: 'auctions:read',
      route: 'getAuction',
      credentials: ['api_key', 'session'],
      access: 'read',
      confirmation: 'never',
      workspaceTypes: ALL_WORKSPACES,
      run: getAuction,
    }),
    defineAction({
      name: 'create_auction',
      title: 'Create an auction',
      description:
        'Create an auction in draft in a room: title, currency (ISO 4217), prices in integer minor units, durationSeconds.',
      input: CreateAuctionInput,
      output: Auction,
      scope: 'auctions:write',
      route: 'createAuction',
      credentials: ['api_key'],
      access: 'write',
      confirmation: 'never',
      workspaceTypes: ALL_WORKSPACES,
      run: createAuction,
    }),
    defineAction({
      name: 'start_auction',
      title: 'Start an auction',
      description: 'Start a draft or scheduled auction now; it ends durationSeconds later.',
      input: AuctionRef,
      output: Auction,
      scope: 'auctions:write',
      route: 'startAuction',
      credentials: ['api_key'],
      access: 'write',
      confirmation: 'never',
      workspaceTypes: ALL_WORKSPACES,
      run: startAuction,
    }),
    defineAction({
      name: 'place_bid',
      title: 'Place a bid',
      description:
        'Bid money on a live auction: amount and/or proxy maxAmount in integer minor units. With an API key, `actor` names the bidder. Always needs a human’s confirmation.',
      input: PlaceBidArguments,
      output: BidResult,
      scope: 'auctions:bid',
      route: 'placeBid',
      credentials: ['api_key', 'session'],
      access: 'write',
      confirmation: 'always',
      workspaceTypes: ALL_WORKSPACES,
      run: placeBid,
    }),
    defineAction({
      name: 'cancel_auction',
      title: 'Cancel an auction',
      description:
        'Cancel a draft, scheduled or live auction; its bids are kept. A live auction with bids needs auctions:admin.',
      input: CancelAuctionArguments,
      output: Auction,
      scope: 'auctions:write',
      route: 'cancelAuction',
      credentials: ['api_key'],
      access: 'destructive',
      confirmation: 'destructive',
      workspaceTypes: ALL_WORKSPACES,
      run: cancelAuction,
    }),
  ],
};
