import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../core/context.ts';
import { pageOfList } from '../../core/http/pagination.ts';
import { errorRef } from '../../core/http/schemas.ts';
import type { Role } from '../../core/tenancy/roles.ts';
import {
  cancelInvitation,
  changeMemberRole,
  inviteMember,
  listTeam,
  removeMember,
} from '../../core/tenancy/team.ts';
import { consoleCaller, consoleContext } from './guard.ts';
import { consoleCreateRoute, consoleListRoute, consoleRoute, tenantRecordParams } from './route-options.ts';
import { Ok, RoleSchema, TeamEntrySchema, TeamPage } from './schemas.ts';

const Invite = Type.Object(
  { email: Type.String({ format: 'email', maxLength: 320 }), role: RoleSchema },
  {
    title: 'InviteMemberInput',
    description: 'Whom to invite, by email, and their role',
    additionalProperties: false,
  },
);
const ChangeRole = Type.Object(
  { role: RoleSchema },
  { title: 'ChangeMemberRoleInput', description: "A member's new role", additionalProperties: false },
);
const MemberParams = tenantRecordParams({ userId: Type.String({ pattern: '^usr_[0-9a-z]{26}$' }) });
const OK = { ok: true as const };
const InvitationParams = tenantRecordParams({ invitationId: Type.String({ pattern: '^inv_[0-9a-z]{26}$' }) });

export async function teamRoutes(app: FastifyInstance, services: Pick<Services, 'db' | 'clock'>) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const ctx = (request: FastifyRequest) => consoleContext(request, services);
  /** The caller's role in the tenant, which bounds the roles they may grant or remove. */
  const by = (request: FastifyRequest) => request.membershipRole as Role;
  typed.get(
    '/api/console/tenants/:tenantId/members',
    consoleListRoute('listMembers', 'Members (active) and invitations (pending)', TeamPage),
    async (request) => pageOfList(await listTeam(ctx(request)), request.query),
  );

  typed.post(
    '/api/console/tenants/:tenantId/members',
    consoleCreateRoute(
      'admin',
      {
        operationId: 'inviteMember',
        summary: 'Invite by email; active once a user with that verified email signs in',
      },
      Invite,
      TeamEntrySchema,
      { 409: errorRef('Already a member, or already invited.') },
    ),
    async (request, reply) => {
      const body = request.body;
      const entry = await inviteMember(ctx(request), {
        email: body.email,
        role: body.role as Role,
        invitedBy: consoleCaller(request).userId,
        actorRole: by(request),
      });
      reply.status(201);
      return entry;
    },
  );

  typed.patch(
    '/api/console/tenants/:tenantId/members/:userId',
    consoleRoute('admin', {
      operationId: 'changeMemberRole',
      summary: "Change a member's role (the last owner cannot be demoted)",
      params: MemberParams,
      body: ChangeRole,
      response: { 200: Ok },
    }),
    async (request) => {
      const { userId } = request.params;
      await changeMemberRole(ctx(request), {
        userId,
        role: request.body.role as Role,
        actorRole: by(request),
      });
      return OK;
    },
  );

  typed.delete(
    '/api/console/tenants/:tenantId/members/:userId',
    consoleRoute('admin', {
      operationId: 'removeMember',
      summary: 'Remove a member (the last owner cannot be removed)',
      params: MemberParams,
      response: { 200: Ok },
    }),
    async (request) => {
      await removeMember(ctx(request), { userId: request.params.userId, actorRole: by(request) });
      return OK;
    },
  );

  typed.delete(
    '/api/console/tenants/:tenantId/invitations/:invitationId',
    consoleRoute('admin', {
      operationId: 'cancelInvitation',
      summary: 'Withdraw a pending invitation',
      params: InvitationParams,
      response: { 200: Ok },
    }),
    async (request) => {
      await cancelInvitation(ctx(request), { invitationId: request.params.invitationId });
      return OK;
    },
  );
}
