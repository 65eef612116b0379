import assert from 'node:assert/strict';
import { bearer, hostedToken } from '../factories.ts';
import { call } from '../helper.ts';
import { defineIsolation, type IsolationCase } from '../support/isolation-suite.ts';

interface CoreRecords {
  eventId: string;
  apiKeyId: string;
  productKeyId: string;
  memberUserId: string;
  invitationId: string;
}

/** A console route under tenant B's path. */
const ofB =
  (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    tail: (ids: CoreRecords) => string,
    payload?: Record<string, unknown>,
  ): IsolationCase<CoreRecords> =>
  (ids, { b }) => ({
    method,
    url: `/api/console/tenants/${b.tenantId}${tail(ids)}`,
    ...(payload === undefined ? {} : { payload }),
  });

/** Core's own routes: events, and the console's tenant, keys, members, modules and MCP policy. */
export const coreIsolation = defineIsolation({
  module: 'core',
  async setup({ b, inB, marker }) {
    const tenant = `/api/console/tenants/${b.tenantId}`;
    const made = async (url: string, payload: Record<string, unknown>, console = true) =>
      (await inB(url, payload, { console })).json<{ id: string; invitationId: string }>();
    return {
      eventId: (await made('/v1/events', { type: 'app.marker', data: { marker } }, false)).id,
      apiKeyId: (await made(`${tenant}/api-keys`, { name: marker, scopes: ['rooms:read'] })).id,
      productKeyId: (await made(`${tenant}/product-keys`, { name: marker })).id,
      memberUserId: b.ownerUserId,
      invitationId: (await made(`${tenant}/members`, { email: `${marker}@example.test`, role: 'viewer' }))
        .invitationId,
    };
  },
  cases: {
    apiKey: {
      'GET /v1/events/:eventId': (ids) => ({ method: 'GET', url: `/v1/events/${ids.eventId}` }),
    },
    console: {
      'GET /api/console/tenants/:tenantId': ofB('GET', () => ''),
      'GET /api/console/tenants/:tenantId/api-keys': ofB('GET', () => '/api-keys'),
      'POST /api/console/tenants/:tenantId/api-keys': ofB('POST', () => '/api-keys', {
        name: 'x',
        scopes: ['*'],
      }),
      'DELETE /api/console/tenants/:tenantId/api-keys/:keyId': ofB(
        'DELETE',
        (ids) => `/api-keys/${ids.apiKeyId}`,
      ),
      'GET /api/console/tenants/:tenantId/members': ofB('GET', () => '/members'),
      'POST /api/console/tenants/:tenantId/members': ofB('POST', () => '/members', {
        email: 'intruder@example.test',
        role: 'owner',
      }),
      'PATCH /api/console/tenants/:tenantId/members/:userId': ofB(
        'PATCH',
        (ids) => `/members/${ids.memberUserId}`,
        { role: 'viewer' },
      ),
      'DELETE /api/console/tenants/:tenantId/members/:userId': ofB(
        'DELETE',
        (ids) => `/members/${ids.memberUserId}`,
      ),
      'DELETE /api/console/tenants/:tenantId/invitations/:invitationId': ofB(
        'DELETE',
        (ids) => `/invitations/${ids.invitationId}`,
      ),
      'GET /api/console/tenants/:tenantId/product-keys': ofB('GET', () => '/product-keys'),
      'POST /api/console/tenants/:tenantId/product-keys': ofB('POST', () => '/product-keys', { name: 'x' }),
      'PATCH /api/console/tenants/:tenantId/product-keys/:productKeyId': ofB(
        'PATCH',
        (ids) => `/product-keys/${ids.productKeyId}`,
        { name: 'taken' },
      ),
      'DELETE /api/console/tenants/:tenantId/product-keys/:productKeyId': ofB(
        'DELETE',
        (ids) => `/product-keys/${ids.productKeyId}`,
      ),
      'GET /api/console/tenants/:tenantId/modules': ofB('GET', () => '/modules'),
      'PUT /api/console/tenants/:tenantId/modules/:module': ofB('PUT', () => '/modules/rooms', {
        enabled: false,
      }),
      'GET /api/console/tenants/:tenantId/events': ofB('GET', () => '/events'),
      'GET /api/console/tenants/:tenantId/event-counts': ofB(
        'GET',
        () => '/event-counts?since=2026-01-01T00:00:00Z',
      ),
      'GET /api/console/tenants/:tenantId/mcp-policy': ofB('GET', () => '/mcp-policy'),
      'PUT /api/console/tenants/:tenantId/mcp-policy': ofB('PUT', () => '/mcp-policy', {
        confirm: 'required_only',
      }),
    },
  },
  notTenantScoped: {
    'POST /v1/actions/:name': 'the action names no record; each action is checked by its own route',
    'GET /docs/static/:file': 'static files of the API reference',
    'GET /console/*':
      "the web console's page (the same index.html for every tenant; data comes from the API)",
    'GET /console/assets/*': "the web console's built scripts and styles (no tenant data)",
  },
  checks: {
    "B's API key is not revoked": async ({ t, b }, ids) => {
      const keys = await call(t.app, {
        method: 'GET',
        url: `/api/console/tenants/${b.tenantId}/api-keys`,
        headers: bearer(b.ownerToken),
      });
      const key = keys
        .json<{ data: { id: string; revokedAt: string | null }[] }>()
        .data.find((k) => k.id === ids.apiKeyId);
      assert.equal(key?.revokedAt, null);
    },
    "A's events show nothing of B": async ({ t, asA, marker }) => {
      const events = await call(t.app, { method: 'GET', url: '/v1/events?limit=100', headers: asA.apiKey() });
      assert.doesNotMatch(events.body, new RegExp(marker));
    },
    'a user of no tenant sees no tenant': async ({ t }) => {
      const stranger = await hostedToken(t);
      const mine = await call(t.app, {
        method: 'GET',
        url: '/api/console/tenants',
        headers: bearer(stranger),
      });
      assert.deepEqual(mine.json(), { data: [], nextCursor: null });
    },
  },
});
