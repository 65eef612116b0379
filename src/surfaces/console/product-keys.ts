import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Database } from '../../core/db/database.ts';
import { createProductKey, listProductKeys, revokeProductKey } from '../../core/tenancy/product-keys.ts';
import { consoleAuth, consoleSecurity, TenantParams } from './guard.ts';
import { listOf, ProductKeySchema } from './schemas.ts';

const CreateProductKey = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);
const ProductKeyParams = {
  type: 'object',
  required: ['tenantId', 'productKeyId'],
  properties: { ...TenantParams.properties, productKeyId: { type: 'string', pattern: '^pk_[0-9a-z]{26}$' } },
} as const;

export async function productKeyRoutes(app: FastifyInstance, { db }: { db: Database }) {
  const tenantOf = (request: { principal?: { tenantId?: string | undefined } | undefined }) =>
    request.principal?.tenantId as string;

  app.post(
    '/api/console/tenants/:tenantId/product-keys',
    {
      config: { ...consoleAuth, minRole: 'developer' },
      schema: {
        operationId: 'createProductKey',
        summary: 'Create a publishable product key (pk_...)',
        tags: ['console'],
        security: consoleSecurity,
        params: TenantParams,
        body: CreateProductKey,
        response: { 201: ProductKeySchema },
      },
    },
    async (request, reply) => {
      const { name } = request.body as Static<typeof CreateProductKey>;
      reply.status(201);
      return createProductKey(db, tenantOf(request), name);
    },
  );

  app.get(
    '/api/console/tenants/:tenantId/product-keys',
    {
      config: { ...consoleAuth, minRole: 'viewer' },
      schema: {
        operationId: 'listProductKeys',
        summary: 'Product keys of the tenant',
        tags: ['console'],
        security: consoleSecurity,
        params: TenantParams,
        response: { 200: listOf(ProductKeySchema) },
      },
    },
    async (request) => ({ data: await listProductKeys(db, tenantOf(request)) }),
  );

  app.delete(
    '/api/console/tenants/:tenantId/product-keys/:productKeyId',
    {
      config: { ...consoleAuth, minRole: 'developer' },
      schema: {
        operationId: 'revokeProductKey',
        summary: 'Revoke a product key',
        tags: ['console'],
        security: consoleSecurity,
        params: ProductKeyParams,
        response: { 200: ProductKeySchema },
      },
    },
    async (request) => {
      const { productKeyId } = request.params as { productKeyId: string };
      return revokeProductKey(db, tenantOf(request), productKeyId);
    },
  );
}
