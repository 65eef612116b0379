import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Principal } from '../../core/auth/principal.ts';
import type { Database } from '../../core/db/database.ts';
import { NotFound } from '../../core/http/errors.ts';
import type { WorkspaceType } from '../../core/tenancy/roles.ts';
import {
  createTenant,
  getTenant,
  listUserTenants,
  type TenantSetupStep,
} from '../../core/tenancy/tenants.ts';
import { consoleAuth, consoleSecurity, TenantParams } from './guard.ts';
import { listOf, TenantSchema, WorkspaceTypeSchema } from './schemas.ts';

const CreateTenant = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }), workspaceType: WorkspaceTypeSchema },
  { additionalProperties: false },
);

export async function tenantRoutes(
  app: FastifyInstance,
  { db, setupSteps }: { db: Database; setupSteps: readonly TenantSetupStep[] },
) {
  app.post(
    '/api/console/tenants',
    {
      config: consoleAuth,
      schema: {
        operationId: 'createTenant',
        summary: 'Set up a tenant; the caller becomes its owner and every module is enabled',
        tags: ['console'],
        security: consoleSecurity,
        body: CreateTenant,
        response: { 201: TenantSchema },
      },
    },
    async (request, reply) => {
      const body = request.body as Static<typeof CreateTenant>;
      const userId = (request.principal as Principal).userId as string;
      const tenant = await createTenant(
        db,
        { name: body.name, workspaceType: body.workspaceType as WorkspaceType, ownerUserId: userId },
        setupSteps,
      );
      reply.status(201);
      return { ...tenant, role: 'owner' as const };
    },
  );

  app.get(
    '/api/console/tenants',
    {
      config: consoleAuth,
      schema: {
        operationId: 'listMyTenants',
        summary: 'Tenants the caller is a member of, with their role',
        tags: ['console'],
        security: consoleSecurity,
        response: { 200: listOf(TenantSchema) },
      },
    },
    async (request) => {
      const memberships = await listUserTenants(db, (request.principal as Principal).userId as string);
      return { data: memberships.map((m) => ({ ...m.tenant, role: m.role })) };
    },
  );

  app.get(
    '/api/console/tenants/:tenantId',
    {
      config: { ...consoleAuth, minRole: 'viewer' },
      schema: {
        operationId: 'getTenant',
        summary: 'One tenant the caller belongs to',
        tags: ['console'],
        security: consoleSecurity,
        params: TenantParams,
        response: { 200: TenantSchema },
      },
    },
    async (request) => {
      const { tenantId } = request.params as { tenantId: string };
      const tenant = await getTenant(db, tenantId);
      if (tenant === undefined || request.membershipRole === undefined)
        throw new NotFound('tenant', tenantId);
      return { ...tenant, role: request.membershipRole };
    },
  );
}
