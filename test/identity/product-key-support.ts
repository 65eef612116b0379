import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { bearer, type TestTenant } from '../factories.ts';
import { call, type TestApp } from '../helper.ts';

/** Routes as a module would declare them: one only for product keys, one that also takes API keys. */
export function productRoutes(app: FastifyInstance): void {
  const who = (request: { principal: unknown }) => request.principal;
  app.get(
    '/test/public/who',
    {
      config: { auth: { credentials: ['product'] } },
      schema: { operationId: 'testProductWho', summary: 'test', hide: true },
    },
    async (request) => who(request),
  );
  app.post(
    '/test/ingest/:thing',
    {
      config: { auth: { credentials: ['api_key', 'product'], scope: 'events:write' } },
      schema: { operationId: 'testProductIngest', summary: 'test', hide: true },
    },
    async (request) => who(request),
  );
}

/** What the test routes answer: the principal they were called as. */
export interface Who {
  kind: string;
  tenantId: string;
  productKeyId?: string;
}

/** A product key made in the console by the tenant's owner. */
export async function productKey(
  t: TestApp,
  tenant: TestTenant,
  body: Record<string, unknown> = {},
): Promise<{ id: string; key: string; allowedOrigins: string[]; rateLimitPerMinute: number }> {
  const res = await call(t.app, {
    method: 'POST',
    url: `/api/console/tenants/${tenant.tenantId}/product-keys`,
    headers: bearer(tenant.ownerToken),
    payload: { name: 'storefront', ...body },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

/** GET /test/public/who with `headers`, from `remoteAddress`. */
export const who = (t: TestApp, headers: Record<string, string>, remoteAddress = '198.51.100.1') =>
  call(t.app, { method: 'GET', url: '/test/public/who', headers, remoteAddress });
