import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../core/context.ts';
import { createProductKey, listProductKeys, revokeProductKey } from '../../core/tenancy/product-keys.ts';
import { consoleContext, consoleRoute, TenantId, TenantParams } from './guard.ts';
import { listOf, ProductKeySchema } from './schemas.ts';

const CreateProductKey = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);
const ProductKeyParams = Type.Object({
  tenantId: TenantId,
  productKeyId: Type.String({ pattern: '^pk_[0-9a-z]{26}$' }),
});

export async function productKeyRoutes(app: FastifyInstance, services: Pick<Services, 'db' | 'clock'>) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  typed.post(
    '/api/console/tenants/:tenantId/product-keys',
    consoleRoute('developer', {
      operationId: 'createProductKey',
      summary: 'Create a publishable product key (pk_...)',
      params: TenantParams,
      body: CreateProductKey,
      response: { 201: ProductKeySchema },
    }),
    async (request, reply) => {
      const { name } = request.body;
      reply.status(201);
      return createProductKey(consoleContext(request, services), { name });
    },
  );

  typed.get(
    '/api/console/tenants/:tenantId/product-keys',
    consoleRoute('viewer', {
      operationId: 'listProductKeys',
      summary: 'Product keys of the tenant',
      params: TenantParams,
      response: { 200: listOf(ProductKeySchema) },
    }),
    async (request) => ({ data: await listProductKeys(consoleContext(request, services)) }),
  );

  typed.delete(
    '/api/console/tenants/:tenantId/product-keys/:productKeyId',
    consoleRoute('developer', {
      operationId: 'revokeProductKey',
      summary: 'Revoke a product key',
      params: ProductKeyParams,
      response: { 200: ProductKeySchema },
    }),
    async (request) => {
      const { productKeyId } = request.params;
      return revokeProductKey(consoleContext(request, services), { productKeyId });
    },
  );
}
