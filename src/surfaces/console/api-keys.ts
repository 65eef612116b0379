import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Identity } from '../../core/auth/identity.ts';
import type { Principal } from '../../core/auth/principal.ts';
import type { Clock } from '../../core/clock.ts';
import type { Database } from '../../core/db/database.ts';
import type { ModuleRegistry } from '../../core/modules/registry.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../../core/tenancy/api-keys.ts';
import { consoleAuth, consoleSecurity, TenantParams } from './guard.ts';
import { ApiKeySchema, listOf } from './schemas.ts';

const createKeyBody = (knownScopes: readonly string[]) =>
  Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 100 }),
      scopes: Type.Array(Type.String({ minLength: 1 }), {
        minItems: 1,
        maxItems: 64,
        description: `Scopes the key carries; one of: ${knownScopes.join(', ')}`,
      }),
      expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
    },
    { additionalProperties: false },
  );
const KeyParams = {
  type: 'object',
  required: ['tenantId', 'keyId'],
  properties: { ...TenantParams.properties, keyId: { type: 'string', pattern: '^key_[0-9a-z]{26}$' } },
} as const;

export async function apiKeyRoutes(
  app: FastifyInstance,
  {
    db,
    identity,
    clock,
    registry,
  }: { db: Database; identity: Identity; clock: Clock; registry: ModuleRegistry },
) {
  const CreateKey = createKeyBody(registry.knownScopes);
  app.post(
    '/api/console/tenants/:tenantId/api-keys',
    {
      config: { ...consoleAuth, minRole: 'developer' },
      schema: {
        operationId: 'createApiKey',
        summary: 'Create an API key; its secret is in this response only',
        tags: ['console'],
        security: consoleSecurity,
        params: TenantParams,
        body: CreateKey,
        response: { 201: Type.Intersect([ApiKeySchema, Type.Object({ key: Type.String() })]) },
      },
    },
    async (request, reply) => {
      const principal = request.principal as Principal;
      const body = request.body as Static<typeof CreateKey>;
      const created = await createApiKey(
        db,
        principal.tenantId as string,
        {
          name: body.name,
          scopes: body.scopes,
          knownScopes: registry.knownScopes,
          expiresAt: body.expiresAt,
          createdBy: principal.userId,
        },
        clock.now(),
      );
      reply.status(201);
      return created;
    },
  );

  app.get(
    '/api/console/tenants/:tenantId/api-keys',
    {
      config: { ...consoleAuth, minRole: 'viewer' },
      schema: {
        operationId: 'listApiKeys',
        summary: 'API keys of the tenant (never their secrets)',
        tags: ['console'],
        security: consoleSecurity,
        params: TenantParams,
        response: { 200: listOf(ApiKeySchema) },
      },
    },
    async (request) => ({ data: await listApiKeys(db, (request.principal as Principal).tenantId as string) }),
  );

  app.delete(
    '/api/console/tenants/:tenantId/api-keys/:keyId',
    {
      config: { ...consoleAuth, minRole: 'developer' },
      schema: {
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key; every instance refuses it within a second',
        tags: ['console'],
        security: consoleSecurity,
        params: KeyParams,
        response: { 200: ApiKeySchema },
      },
    },
    async (request) => {
      const { keyId } = request.params as { keyId: string };
      const revoked = await revokeApiKey(db, (request.principal as Principal).tenantId as string, keyId);
      identity.apiKeys.evict(keyId);
      return revoked;
    },
  );
}
