import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { PLATFORM_SCOPES } from '../../core/auth/scopes.ts';
import { Page, PageQuery, pageOfList } from '../../core/http/pagination.ts';
import type { ModuleRegistry } from '../../core/modules/registry.ts';
import { consoleAuth } from './route-options.ts';
import { Nullable } from './schemas.ts';

const ScopeInfo = Type.Object(
  {
    scope: Type.String(),
    module: Nullable(Type.String({ description: 'The module that declares it; null for platform scopes' })),
    description: Type.String(),
  },
  { title: 'ScopeInfo', description: 'A scope an API key may carry' },
);
const ScopePage = Page(ScopeInfo, 'ScopeInfoPage', 'A page of the scopes an API key may carry');

export interface ScopeInfoRow {
  scope: string;
  module: string | null;
  description: string;
}

/** Every scope a new API key may carry: `*`, then each module's in registration order, then the platform's. */
export function scopeCatalog(registry: ModuleRegistry): ScopeInfoRow[] {
  const rows: ScopeInfoRow[] = [{ scope: '*', module: null, description: 'Every scope, now and later.' }];
  for (const m of registry.modules) {
    for (const scope of m.scopes) {
      const verb = scope.slice(scope.indexOf(':') + 1);
      rows.push({ scope, module: m.name, description: `${m.title}: ${verb}.` });
    }
  }
  for (const [scope, description] of Object.entries(PLATFORM_SCOPES)) {
    rows.push({ scope, module: null, description });
  }
  return rows;
}

export async function scopeRoutes(app: FastifyInstance, { registry }: { registry: ModuleRegistry }) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const catalog = scopeCatalog(registry);
  typed.get(
    '/api/console/scopes',
    {
      config: consoleAuth,
      schema: {
        operationId: 'listApiKeyScopes',
        summary: 'The scopes an API key may carry, with the module that declares each',
        tags: ['console'],
        querystring: PageQuery,
        response: { 200: ScopePage },
      },
    },
    async (request) => pageOfList(catalog, request.query),
  );
}
