import assert from 'node:assert/strict';
import { createTestTenant, type TestTenant } from '../../../../test/factories.ts';
import { buildTestApp, call, type Response, type TestApp } from '../../../../test/helper.ts';
import { suiteFixture } from '../../../../test/support/suite.ts';
import { bid, consoleCall, makeAuction, makeProductKey, makeRoom } from './support.ts';

/** Every field a public answer may carry: anything else is a leak. */
export const BRAND_FIELDS = [
  'colors',
  'coverImageUrl',
  'defaultCurrency',
  'defaultLocale',
  'links',
  'logoUrl',
  'name',
  'operator',
  'shortDescription',
  'slogan',
];
export const AUCTION_FIELDS = [
  'bidCount',
  'buyNowAvailable',
  'buyNowPrice',
  'currency',
  'currentPrice',
  'description',
  'endedAt',
  'endsAt',
  'finalPrice',
  'hasReserve',
  'id',
  'images',
  'minimumBid',
  'outcome',
  'reserveMet',
  'roomId',
  'startingPrice',
  'startsAt',
  'status',
  'title',
  'updatedAt',
];
export const PAGE_FIELDS = ['data', 'nextCursor'];

export interface PublicAuction {
  id: string;
  status: string;
  roomId: string;
  images: string[];
  reserveMet: boolean;
  hasReserve: boolean;
  currentPrice: number | null;
  bidCount: number;
  [field: string]: unknown;
}

/** Two tenants with a product key each, and the first tenant's auctions in every public state. */
export interface PublicWorld {
  t: TestApp;
  tenant: TestTenant;
  other: TestTenant;
  key: string;
  otherKey: string;
  roomId: string;
  otherRoom: string;
  ids: { live: string; scheduled: string; draft: string; unpublished: string; otherTenant: string };
}

async function seedWorld(): Promise<PublicWorld> {
  const t = await buildTestApp({ config: { authFailureLimit: 1_000_000 } });
  const tenant = await createTestTenant(t, { name: 'Tenant A' });
  const other = await createTestTenant(t, { name: 'Tenant B' });
  const key = (await makeProductKey(t, tenant)).key;
  const otherKey = (await makeProductKey(t, other)).key;
  const roomId = await makeRoom(t, tenant.apiKey);
  const otherRoom = await makeRoom(t, tenant.apiKey);
  const ids = { live: '', scheduled: '', draft: '', unpublished: '', otherTenant: '' };
  ids.live = await makeAuction(
    t,
    tenant.apiKey,
    roomId,
    {
      published: true,
      reservePrice: 20000,
      metadata: {
        image: 'https://img.example/1.jpg',
        images: 'https://img.example/2.jpg, not-a-url https://img.example/1.jpg',
        sku: 'private-sku',
      },
    },
    'live',
  );
  ids.scheduled = await makeAuction(t, tenant.apiKey, otherRoom, { published: true }, 'scheduled');
  ids.draft = await makeAuction(t, tenant.apiKey, roomId, { published: true });
  ids.unpublished = await makeAuction(t, tenant.apiKey, roomId, { published: false }, 'live');
  ids.otherTenant = await makeAuction(
    t,
    other.apiKey,
    await makeRoom(t, other.apiKey),
    { published: true },
    'live',
  );
  await bid(t, tenant.apiKey, ids.live, 1000, 9000);
  await bid(t, tenant.apiKey, ids.live, 2000);
  return { t, tenant, other, key, otherKey, roomId, otherRoom, ids };
}

/** The public world for a describe's tests (made before them, closed after), and GETs against it. */
export function publicSuite() {
  const world = suiteFixture('publicSuite', seedWorld, ({ t }) => t.close());
  const get = (url: string, headers: Record<string, string>): Promise<Response> =>
    call(world().t.app, { method: 'GET', url, headers });
  return {
    world,
    get,
    /** The ids of the auctions a public list answers. */
    async listed(url: string, headers: Record<string, string>): Promise<string[]> {
      const res = await get(url, headers);
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ data: PublicAuction[] }>().data.map((a) => a.id);
    },
  };
}

/** Runs `fn` with the tenant's storefront changed by `patch` (its brand kept), then puts it back. */
export async function withStorefront(
  t: TestApp,
  tenant: TestTenant,
  patch: Record<string, unknown>,
  fn: () => Promise<void>,
): Promise<void> {
  const url = `/api/console/tenants/${tenant.tenantId}/storefront`;
  const current = (await consoleCall(t, tenant, 'GET', url)).json<{ brand: Record<string, unknown> }>();
  const changed = await consoleCall(t, tenant, 'PUT', url, { brand: current.brand, ...patch });
  assert.equal(changed.statusCode, 200, changed.body);
  try {
    await fn();
  } finally {
    await consoleCall(t, tenant, 'PUT', url, { brand: current.brand });
  }
}
