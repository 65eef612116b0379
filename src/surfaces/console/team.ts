import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Principal } from '../../core/auth/principal.ts';
import type { Database } from '../../core/db/database.ts';
import type { Role } from '../../core/tenancy/roles.ts';
import {
  cancelInvitation,
  changeMemberRole,
  inviteMember,
  listTeam,
  removeMember,
} from '../../core/tenancy/team.ts';
import { consoleAuth, consoleSecurity, TenantParams } from './guard.ts';
import { listOf, RoleSchema, TeamEntrySchema } from './schemas.ts';

const Invite = Type.Object(
  { email: Type.String({ format: 'email', maxLength: 320 }), role: RoleSchema },
  { additionalProperties: false },
);
const ChangeRole = Type.Object({ role: RoleSchema }, { additionalProperties: false });
const MemberParams = {
  type: 'object',
  required: ['tenantId', 'userId'],
  properties: { ...TenantParams.properties, userId: { type: 'string', pattern: '^usr_[0-9a-z]{26}$' } },
} as const;
const InvitationParams = {
  type: 'object',
  required: ['tenantId', 'invitationId'],
  properties: { ...TenantParams.properties, invitationId: { type: 'string', pattern: '^inv_[0-9a-z]{26}$' } },
} as const;
const Ok = Type.Object({ ok: Type.Literal(true) });

const tenantOf = (request: { principal: Principal | undefined }) => request.principal?.tenantId as string;

export async function teamRoutes(app: FastifyInstance, { db }: { db: Database }) {
  app.get(
    '/api/console/tenants/:tenantId/members',
    {
      config: { ...consoleAuth, minRole: 'viewer' },
      schema: {
        operationId: 'listMembers',
        summary: 'Members (active) and invitations (pending)',
        tags: ['console'],
        security: consoleSecurity,
        params: TenantParams,
        response: { 200: listOf(TeamEntrySchema) },
      },
    },
    async (request) => ({ data: await listTeam(db, tenantOf(request)) }),
  );

  app.post(
    '/api/console/tenants/:tenantId/members',
    {
      config: { ...consoleAuth, minRole: 'admin' },
      schema: {
        operationId: 'inviteMember',
        summary: 'Invite by email; active once a user with that verified email signs in',
        tags: ['console'],
        security: consoleSecurity,
        params: TenantParams,
        body: Invite,
        response: { 201: TeamEntrySchema },
      },
    },
    async (request, reply) => {
      const body = request.body as Static<typeof Invite>;
      const entry = await inviteMember(db, tenantOf(request), {
        email: body.email,
        role: body.role as Role,
        invitedBy: request.principal?.userId as string,
        actorRole: request.membershipRole as Role,
      });
      reply.status(201);
      return entry;
    },
  );

  app.patch(
    '/api/console/tenants/:tenantId/members/:userId',
    {
      config: { ...consoleAuth, minRole: 'admin' },
      schema: {
        operationId: 'changeMemberRole',
        summary: "Change a member's role (the last owner cannot be demoted)",
        tags: ['console'],
        security: consoleSecurity,
        params: MemberParams,
        body: ChangeRole,
        response: { 200: Ok },
      },
    },
    async (request) => {
      const { userId } = request.params as { userId: string };
      const { role } = request.body as Static<typeof ChangeRole>;
      await changeMemberRole(db, tenantOf(request), {
        userId,
        role: role as Role,
        actorRole: request.membershipRole as Role,
      });
      return { ok: true as const };
    },
  );

  app.delete(
    '/api/console/tenants/:tenantId/members/:userId',
    {
      config: { ...consoleAuth, minRole: 'admin' },
      schema: {
        operationId: 'removeMember',
        summary: 'Remove a member (the last owner cannot be removed)',
        tags: ['console'],
        security: consoleSecurity,
        params: MemberParams,
        response: { 200: Ok },
      },
    },
    async (request) => {
      const { userId } = request.params as { userId: string };
      await removeMember(db, tenantOf(request), { userId, actorRole: request.membershipRole as Role });
      return { ok: true as const };
    },
  );

  app.delete(
    '/api/console/tenants/:tenantId/invitations/:invitationId',
    {
      config: { ...consoleAuth, minRole: 'admin' },
      schema: {
        operationId: 'cancelInvitation',
        summary: 'Withdraw a pending invitation',
        tags: ['console'],
        security: consoleSecurity,
        params: InvitationParams,
        response: { 200: Ok },
      },
    },
    async (request) => {
      const { invitationId } = request.params as { invitationId: string };
      await cancelInvitation(db, tenantOf(request), invitationId);
      return { ok: true as const };
    },
  );
}
