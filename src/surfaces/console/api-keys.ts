import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Identity } from '../../core/auth/identity.ts';
import type { Clock } from '../../core/clock.ts';
import type { Database } from '../../core/db/database.ts';
import { pageOfList } from '../../core/http/pagination.ts';
import type { ModuleRegistry } from '../../core/modules/registry.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../../core/tenancy/api-keys.ts';
import { consoleCaller, consoleContext } from './guard.ts';
import { consoleCreateRoute, consoleListRoute, consoleRoute, tenantRecordParams } from './route-options.ts';
import { ApiKeyPage, ApiKeySchema } from './schemas.ts';

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
    {
      title: 'CreateApiKeyInput',
      description: 'A new API key: its name, scopes and optional expiry',
      additionalProperties: false,
    },
  );
const CreatedApiKey = Type.Intersect([ApiKeySchema, Type.Object({ key: Type.String() })], {
  title: 'CreatedApiKey',
  description: 'A new API key with its secret (`key`), shown in this answer only',
});
const KeyParams = tenantRecordParams({ keyId: Type.String({ pattern: '^key_[0-9a-z]{26}$' }) });

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
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.post(
    '/api/console/tenants/:tenantId/api-keys',
    consoleCreateRoute(
      'developer',
      { operationId: 'createApiKey', summary: 'Create an API key; its secret is in this response only' },
      CreateKey,
      CreatedApiKey,
    ),
    async (request, reply) => {
      const { userId } = consoleCaller(request);
      const body = request.body;
      const created = await createApiKey(consoleContext(request, { db, clock }), {
        name: body.name,
        scopes: body.scopes,
        knownScopes: registry.knownScopes,
        expiresAt: body.expiresAt,
        createdBy: userId,
      });
      reply.status(201);
      return created;
    },
  );

  typed.get(
    '/api/console/tenants/:tenantId/api-keys',
    consoleListRoute('listApiKeys', 'API keys of the tenant (never their secrets)', ApiKeyPage),
    async (request) => pageOfList(await listApiKeys(consoleContext(request, { db, clock })), request.query),
  );

  typed.delete(
    '/api/console/tenants/:tenantId/api-keys/:keyId',
    consoleRoute('developer', {
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key; every instance refuses it within a second',
      params: KeyParams,
      response: { 200: ApiKeySchema },
    }),
    async (request) => {
      const { keyId, tenantId } = request.params;
      const revoked = await revokeApiKey(consoleContext(request, { db, clock }), { keyId });
      // This instance at once (the key, its sockets, the sessions it minted); the others at their next poll.
      identity.apiKeyRevoked(tenantId, keyId);
      return revoked;
    },
  );
}
