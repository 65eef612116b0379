import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer } from '../factories.ts';
import { call } from '../helper.ts';
import { appSuite } from '../support/suite.ts';
import type { CatalogEntry } from './catalog-support.ts';

describe('module catalog: public and per-tenant metadata, a page at a time', () => {
  const s = appSuite();

  test('catalog without a credential: public metadata only', async () => {
    const { t } = s;
    const res = await call(t.app, { method: 'GET', url: '/v1/modules/catalog' });
    assert.equal(res.statusCode, 200);
    const rooms = res.json<{ data: CatalogEntry[] }>().data.find((m) => m.name === 'rooms');
    assert.ok(rooms);
    assert.deepEqual(rooms.eventTypes, ['room.created', 'room.updated', 'room.deleted']);
    assert.ok(rooms.actions.includes('create_room'));
    assert.equal('enabled' in rooms, false);
    assert.equal('config' in rooms, false);
  });

  test('catalog, actions and console module settings are lists: {data, nextCursor}, a page at a time', async () => {
    const { t, tenant } = s;
    /** Every name of a list, read `limit` at a time by following nextCursor. */
    const walk = async (url: string, headers: Record<string, string>, key: 'name' | 'module') => {
      const names: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
        const res = await call(t.app, { method: 'GET', url: `${url}?limit=2${query}`, headers });
        assert.equal(res.statusCode, 200, res.body);
        const page = res.json<{ data: Record<string, string>[]; nextCursor: string | null }>();
        assert.ok(page.data.length <= 2);
        names.push(...page.data.map((entry) => String(entry[key])));
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor !== null);
      return { names, pages };
    };
    const apiKey = bearer(tenant.apiKey);
    const all = (await call(t.app, { method: 'GET', url: '/v1/modules/catalog', headers: apiKey })).json<{
      data: CatalogEntry[];
      nextCursor: string | null;
    }>();
    assert.equal(all.nextCursor, null, 'the whole catalog fits the default page');
    const catalog = await walk('/v1/modules/catalog', apiKey, 'name');
    assert.deepEqual(
      catalog.names,
      all.data.map((m) => m.name),
    );
    assert.ok(catalog.pages > 1);
    const actions = await walk('/v1/actions', apiKey, 'name');
    assert.ok(actions.pages > 1 && actions.names.includes('create_room'));
    assert.equal(new Set(actions.names).size, actions.names.length, 'no action on two pages');
    const settings = await walk(
      `/api/console/tenants/${tenant.tenantId}/modules`,
      bearer(tenant.ownerToken),
      'module',
    );
    assert.deepEqual(settings.names, catalog.names);
    const bad = await call(t.app, { method: 'GET', url: '/v1/actions?cursor=nope', headers: apiKey });
    assert.equal(bad.statusCode, 400);
  });

  test('catalog with a credential: enablement and config with defaults; a bad credential is still refused', async () => {
    const { t, tenant } = s;
    const res = await call(t.app, {
      method: 'GET',
      url: '/v1/modules/catalog',
      headers: bearer(tenant.apiKey),
    });
    const rooms = res.json<{ data: CatalogEntry[] }>().data.find((m) => m.name === 'rooms');
    assert.equal(rooms?.enabled, true);
    assert.deepEqual(rooms?.config, { maxRooms: 100000 });
    const bad = await call(t.app, {
      method: 'GET',
      url: '/v1/modules/catalog',
      headers: bearer('svc_live_bad'),
    });
    assert.equal(bad.statusCode, 401);
  });
});
