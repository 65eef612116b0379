import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { call, type TestApp } from '../../../../test/helper.ts';
import { keyOf, postWithKey as post } from '../../../../test/support/api-key.ts';
import { type AppSuite, type AppSuiteOptions, appSuite } from '../../../../test/support/suite.ts';

/** The API's Actor object. */
export interface Actor {
  type: string;
  id: string;
  identityProvider: string;
}

export interface AuctionBody {
  id: string;
  roomId: string;
  status: string;
  currentPrice: number | null;
  minimumBid: number | null;
  leadingBid: { bidId: string; bidder: Actor; amount: number } | null;
  bidCount: number;
  endsAt: string | null;
  extensions: number;
  seq: number;
  outcome: string | null;
  winner: Actor | null;
  finalPrice: number | null;
  buyNowAvailable: boolean;
  reserveMet: boolean;
  [field: string]: unknown;
}

export interface ErrorBody {
  error: string;
  message: string;
  details?: { field: string; message: string; code?: string }[];
}

/** An answer to an injected request. */
export interface Answer {
  statusCode: number;
  body: string;
  json<T>(): T;
}

export { keyOf, post };

/** An API key's named bidder. */
export const bidder = (name: string) => ({ type: 'end_user', id: `test:${name}`, identityProvider: 'test' });

export async function makeRoom(t: TestApp, apiKey: string): Promise<string> {
  const res = await post(t, apiKey, '/v1/rooms', { id: `room-${randomUUID().slice(0, 8)}` });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ id: string }>().id;
}

export async function makeAuction(
  t: TestApp,
  apiKey: string,
  overrides: Record<string, unknown> = {},
): Promise<AuctionBody> {
  const roomId = typeof overrides.roomId === 'string' ? overrides.roomId : await makeRoom(t, apiKey);
  const res = await post(t, apiKey, '/v1/auctions', {
    roomId,
    title: 'Signed vinyl',
    currency: 'EUR',
    startingPrice: 1000,
    durationSeconds: 3600,
    increments: [{ from: 0, increment: 100 }],
    ...overrides,
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<AuctionBody>();
}

export async function liveAuction(
  t: TestApp,
  apiKey: string,
  overrides: Record<string, unknown> = {},
): Promise<AuctionBody> {
  const made = await makeAuction(t, apiKey, overrides);
  const res = await post(t, apiKey, `/v1/auctions/${made.id}/start`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json<AuctionBody>();
}

export async function placeBid(
  t: TestApp,
  apiKey: string,
  auctionId: string,
  who: string,
  amounts: Record<string, unknown>,
) {
  return post(t, apiKey, `/v1/auctions/${auctionId}/bids`, { ...amounts, actor: bidder(who) });
}

/** The tenant's events of `type` about one auction, oldest first. */
export async function eventsOf(
  t: TestApp,
  apiKey: string,
  type: string,
  auctionId: string,
): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const found: { type: string; data: Record<string, unknown> }[] = [];
  let cursor: string | null = null;
  do {
    const res = await call(t.app, {
      method: 'GET',
      url: `/v1/events?type=${encodeURIComponent(type)}&limit=100&order=asc${cursor === null ? '' : `&cursor=${cursor}`}`,
      headers: keyOf(apiKey),
    });
    assert.equal(res.statusCode, 200, res.body);
    const page = res.json<{
      data: { type: string; data: Record<string, unknown> }[];
      nextCursor: string | null;
    }>();
    found.push(...page.data.filter((e) => e.data.auctionId === auctionId));
    cursor = page.nextCursor;
  } while (cursor !== null);
  return found;
}

/** The REST helpers above, bound to an `appSuite`'s app and its first tenant's key. */
export interface AuctionSuite extends AppSuite {
  get(url: string): Promise<Answer>;
  post(url: string, payload?: Record<string, unknown>): Promise<Answer>;
  room(): Promise<string>;
  auction(overrides?: Record<string, unknown>): Promise<AuctionBody>;
  live(overrides?: Record<string, unknown>): Promise<AuctionBody>;
  bid(auctionId: string, who: string, amounts: Record<string, unknown>): Promise<Answer>;
  events(type: string, auctionId: string): ReturnType<typeof eventsOf>;
}

/** A test app with one tenant for the describe's tests, and the auction helpers acting with its key. */
export function auctionSuite(options: AppSuiteOptions = {}): AuctionSuite {
  const s = appSuite(options);
  return {
    get t() {
      return s.t;
    },
    get tenant() {
      return s.tenant;
    },
    get key() {
      return s.key;
    },
    get tenants() {
      return s.tenants;
    },
    get: (url) => call(s.t.app, { method: 'GET', url, headers: keyOf(s.key) }),
    post: (url, payload) => post(s.t, s.key, url, payload),
    room: () => makeRoom(s.t, s.key),
    auction: (overrides) => makeAuction(s.t, s.key, overrides),
    live: (overrides) => liveAuction(s.t, s.key, overrides),
    bid: (auctionId, who, amounts) => placeBid(s.t, s.key, auctionId, who, amounts),
    events: (type, auctionId) => eventsOf(s.t, s.key, type, auctionId),
  };
}
