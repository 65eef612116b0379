import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Identity } from '../../core/auth/identity.ts';
import type { Services } from '../../core/context.ts';
import { pageOfList } from '../../core/http/pagination.ts';
import {
  createProductKey,
  listProductKeys,
  revokeProductKey,
  updateProductKey,
} from '../../core/tenancy/product-keys.ts';
import { consoleContext } from './guard.ts';
import { consoleCreateRoute, consoleListRoute, consoleRoute, tenantRecordParams } from './route-options.ts';
import { AllowedOriginsSchema, ProductKeyPage, ProductKeySchema, RateLimitSchema } from './schemas.ts';

const KeyName = Type.String({ minLength: 1, maxLength: 100 });
const CreateProductKey = Type.Object(
  {
    name: KeyName,
    allowedOrigins: Type.Optional(AllowedOriginsSchema),
    rateLimitPerMinute: Type.Optional(RateLimitSchema),
  },
  {
    title: 'CreateProductKeyInput',
    description: 'A new product key: its name, allowed origins and rate limit',
    additionalProperties: false,
  },
);
const UpdateProductKey = Type.Object(
  {
    name: Type.Optional(KeyName),
    allowedOrigins: Type.Optional(AllowedOriginsSchema),
    rateLimitPerMinute: Type.Optional(RateLimitSchema),
  },
  {
    title: 'UpdateProductKeyInput',
    description: "The product key's fields to change; those left out stay",
    additionalProperties: false,
    minProperties: 1,
  },
);
const ProductKeyParams = tenantRecordParams({ productKeyId: Type.String({ pattern: '^pk_[0-9a-z]{26}$' }) });

export async function productKeyRoutes(
  app: FastifyInstance,
  services: Pick<Services, 'db' | 'clock'> & { identity: Identity },
) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  typed.post(
    '/api/console/tenants/:tenantId/product-keys',
    consoleCreateRoute(
      'developer',
      { operationId: 'createProductKey', summary: 'Create a publishable product key (pk_...)' },
      CreateProductKey,
      ProductKeySchema,
    ),
    async (request, reply) => {
      reply.status(201);
      return createProductKey(consoleContext(request, services), request.body);
    },
  );

  typed.patch(
    '/api/console/tenants/:tenantId/product-keys/:productKeyId',
    consoleRoute('developer', {
      operationId: 'updateProductKey',
      summary: 'Rename a product key or change its allowed origins or rate limit (applied within a second)',
      params: ProductKeyParams,
      body: UpdateProductKey,
      response: { 200: ProductKeySchema },
    }),
    async (request) => {
      const { productKeyId } = request.params;
      const updated = await updateProductKey(consoleContext(request, services), {
        ...request.body,
        productKeyId,
      });
      // This instance at once; the others at their next revocation poll.
      services.identity.productKeys.evict(productKeyId);
      return updated;
    },
  );

  typed.get(
    '/api/console/tenants/:tenantId/product-keys',
    consoleListRoute('listProductKeys', 'Product keys of the tenant', ProductKeyPage),
    async (request) => pageOfList(await listProductKeys(consoleContext(request, services)), request.query),
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
      const revoked = await revokeProductKey(consoleContext(request, services), { productKeyId });
      services.identity.productKeys.evict(productKeyId);
      return revoked;
    },
  );
}
