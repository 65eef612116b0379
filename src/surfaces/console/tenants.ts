import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { hostedUser } from '../../core/auth/principal.ts';
import type { Clock } from '../../core/clock.ts';
import type { Database } from '../../core/db/database.ts';
import { NotFound } from '../../core/http/errors.ts';
import { PageQuery, pageOfList } from '../../core/http/pagination.ts';
import type { WorkspaceType } from '../../core/tenancy/roles.ts';
import {
  createTenant,
  getTenant,
  listUserTenants,
  type TenantSetupStep,
} from '../../core/tenancy/tenants.ts';
import { consoleRoute, consoleUserRoute, TenantParams } from './route-options.ts';
import { TenantPage, TenantSchema, WorkspaceTypeSchema } from './schemas.ts';

const CreateTenant = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }), workspaceType: WorkspaceTypeSchema },
  {
    title: 'CreateTenantInput',
    description: 'A new tenant: its name and workspace type',
    additionalProperties: false,
  },
);

export async function tenantRoutes(
  app: FastifyInstance,
  { db, clock, setupSteps }: { db: Database; clock: Clock; setupSteps: readonly TenantSetupStep[] },
) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.post(
    '/api/console/tenants',
    consoleUserRoute({
      operationId: 'createTenant',
      summary: 'Set up a tenant; the caller becomes its owner and every module is enabled',
      body: CreateTenant,
      response: { 201: TenantSchema },
    }),
    async (request, reply) => {
      const body = request.body;
      const { userId } = hostedUser(request.principal);
      const tenant = await createTenant(
        { db, clock },
        { name: body.name, workspaceType: body.workspaceType as WorkspaceType, ownerUserId: userId },
        setupSteps,
      );
      reply.status(201);
      return { ...tenant, role: 'owner' as const };
    },
  );

  typed.get(
    '/api/console/tenants',
    consoleUserRoute({
      operationId: 'listMyTenants',
      summary: 'Tenants the caller is a member of, with their role',
      querystring: PageQuery,
      response: { 200: TenantPage },
    }),
    async (request) => {
      const memberships = await listUserTenants(db, hostedUser(request.principal).userId);
      return pageOfList(
        memberships.map((m) => ({ ...m.tenant, role: m.role })),
        request.query,
      );
    },
  );

  typed.get(
    '/api/console/tenants/:tenantId',
    consoleRoute('viewer', {
      operationId: 'getTenant',
      summary: 'One tenant the caller belongs to',
      params: TenantParams,
      response: { 200: TenantSchema },
    }),
    async (request) => {
      const { tenantId } = request.params;
      const tenant = await getTenant(db, tenantId);
      if (tenant === undefined || request.membershipRole === undefined)
        throw new NotFound('tenant', tenantId);
      return { ...tenant, role: request.membershipRole };
    },
  );
}
