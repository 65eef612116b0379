import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../core/context.ts';
import { tenantTx } from '../../core/db/tenant-tx.ts';
import { NotFound } from '../../core/http/errors.ts';
import { Page, pageOfList } from '../../core/http/pagination.ts';
import { validated } from '../../core/modules/validate.ts';
import { consoleCaller } from './guard.ts';
import { consoleListRoute, consoleRoute, TenantParams } from './route-options.ts';

const ModuleSetting = Type.Object(
  {
    module: Type.String(),
    title: Type.String(),
    enabled: Type.Boolean(),
    config: Type.Object({}, { additionalProperties: true }),
    configSchema: Type.Object({}, { additionalProperties: true }),
  },
  { title: 'ModuleSetting', description: "A module's enablement and configuration for one tenant" },
);
const ModuleSettingPage = Page(ModuleSetting, 'ModuleSettingPage', "A page of the tenant's module settings");
const PutModule = Type.Object(
  {
    enabled: Type.Boolean(),
    config: Type.Optional(
      Type.Object(
        {},
        { additionalProperties: true, description: "Validated against the module's configSchema" },
      ),
    ),
  },
  {
    title: 'ConfigureModuleInput',
    description: 'Whether the module is on for the tenant, and its configuration',
    additionalProperties: false,
  },
);
const ModuleParams = {
  type: 'object',
  required: ['tenantId', 'module'],
  properties: { ...TenantParams.properties, module: { type: 'string', pattern: '^[a-z]{1,40}$' } },
} as const;

export async function moduleSettingsRoutes(app: FastifyInstance, services: Services) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const { registry, enablement, db } = services;

  typed.get(
    '/api/console/tenants/:tenantId/modules',
    consoleListRoute(
      'listTenantModules',
      'Each module with its enablement and configuration for this tenant',
      ModuleSettingPage,
    ),
    async (request) => {
      const { tenantId } = consoleCaller(request);
      const states = await enablement.states(tenantId);
      return pageOfList(
        registry.modules.map((m) => ({
          module: m.name,
          title: m.title,
          enabled: states.get(m.name)?.enabled === true,
          config: validated<Record<string, unknown>>(
            m.configSchema,
            states.get(m.name)?.config ?? {},
            'config',
          ),
          configSchema: m.configSchema,
        })),
        request.query,
      );
    },
  );

  typed.put(
    '/api/console/tenants/:tenantId/modules/:module',
    consoleRoute('admin', {
      operationId: 'configureTenantModule',
      summary: 'Enable or disable a module and set its configuration',
      params: ModuleParams,
      body: PutModule,
      response: { 200: ModuleSetting },
    }),
    async (request) => {
      const { tenantId } = consoleCaller(request);
      const { module: name } = request.params;
      const manifest = registry.module(name);
      if (manifest === undefined) throw new NotFound('module', name);
      const body = request.body;
      const config = validated<Record<string, unknown>>(
        manifest.configSchema,
        body.config ?? {},
        'body/config',
      );
      await tenantTx(db, { tenantId }, (tx) =>
        tx.query(
          `insert into tenant_modules (tenant_id, module, enabled, config) values ($1, $2, $3, $4)
           on conflict (tenant_id, module) do update
             set enabled = excluded.enabled, config = excluded.config, updated_at = now()`,
          [tenantId, name, body.enabled, JSON.stringify(config)],
        ),
      );
      enablement.invalidate(tenantId);
      return {
        module: name,
        title: manifest.title,
        enabled: body.enabled,
        config,
        configSchema: manifest.configSchema,
      };
    },
  );
}
