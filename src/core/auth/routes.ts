import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { Actor, actorView } from '../tenancy/actors.ts';
import { type TenantSummary as KnownTenant, TenantDirectory } from '../tenancy/tenant-directory.ts';
import { listUserTenants } from '../tenancy/tenants.ts';
import { getUser } from '../tenancy/users.ts';
import type { Identity } from './identity.ts';
import {
  type ApiKeyPrincipal,
  authenticated,
  type HostedUserPrincipal,
  hostedUser,
  type Principal,
  type SessionPrincipal,
} from './principal.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const TenantSummary = Type.Object(
  { id: Type.String(), name: Type.String(), workspaceType: Type.String() },
  { title: 'TenantSummary', description: 'A tenant by id, name and workspace type' },
);
const UserSummary = Type.Object(
  {
    id: Type.String(),
    email: Nullable(Type.String()),
    name: Nullable(Type.String()),
    identityProvider: Type.String(),
    providerUserId: Type.String(),
  },
  {
    title: 'ConsoleUser',
    description: 'A console user (usr_...), as the hosted identity provider names them',
  },
);
const Membership = Type.Object(
  {
    tenantId: Type.String(),
    tenantName: Type.String(),
    workspaceType: Type.String(),
    role: Type.String(),
  },
  { title: 'Membership', description: "A console user's role in one tenant" },
);

const Me = Type.Object(
  {
    tenant: Nullable(TenantSummary),
    principal: Type.Object({
      kind: Type.String({ description: 'api_key, hosted_user or session' }),
      scopes: Type.Array(Type.String()),
      modules: Type.Optional(Type.Array(Type.String())),
      roomId: Type.Optional(Type.String()),
      expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
    }),
    apiKey: Type.Optional(Type.Object({ id: Type.String(), name: Type.String(), prefix: Type.String() })),
    actor: Type.Optional(Actor),
    user: Type.Optional(UserSummary),
    memberships: Type.Optional(Type.Array(Membership)),
  },
  {
    title: 'Me',
    description:
      'Who a credential is: its tenant and principal, and the API key, session actor or console user behind it',
  },
);
const AuthUser = Type.Object(
  { user: UserSummary, memberships: Type.Array(Membership) },
  { title: 'AuthUser', description: 'The signed-in console user and their tenant memberships' },
);
const Jwks = Type.Object(
  { keys: Type.Array(Type.Object({}, { additionalProperties: true })) },
  { title: 'Jwks', description: 'A JSON Web Key Set: the public keys that verify session tokens' },
);

type MeBody = Static<typeof Me>;

async function userWithMemberships(db: Database, userId: string) {
  const [user, memberships] = await Promise.all([getUser(db, userId), listUserTenants(db, userId)]);
  return {
    user:
      user === undefined
        ? undefined
        : {
            id: user.id,
            email: user.email,
            name: user.name,
            identityProvider: user.identityProvider,
            providerUserId: user.providerUserId,
          },
    memberships: memberships.map((m) => ({
      tenantId: m.tenant.id,
      tenantName: m.tenant.name,
      workspaceType: m.tenant.workspaceType,
      role: m.role,
    })),
  };
}

function sessionBody(principal: SessionPrincipal, tenant: KnownTenant | undefined): MeBody {
  const view: MeBody['principal'] = {
    kind: principal.kind,
    scopes: principal.scopes as string[],
    modules: principal.modules as string[],
    expiresAt: new Date(principal.expiresAt).toISOString(),
  };
  if (principal.roomId !== undefined) view.roomId = principal.roomId;
  return { tenant: tenant ?? null, principal: view, actor: actorView(principal.actor) };
}

function apiKeyBody(principal: ApiKeyPrincipal, tenant: KnownTenant | undefined): MeBody {
  return {
    tenant: tenant ?? null,
    principal: { kind: principal.kind, scopes: principal.scopes as string[] },
    apiKey: principal.apiKey,
  };
}

/** A console user's /v1/me: their tenant on /v1 is the one they act in (X-SVC-Tenant), else their only one. */
async function hostedMe(db: Database, principal: HostedUserPrincipal): Promise<MeBody> {
  const { user, memberships } = await userWithMemberships(db, principal.userId);
  const only =
    principal.tenantId !== undefined
      ? memberships.find((m) => m.tenantId === principal.tenantId)
      : memberships.length === 1
        ? memberships[0]
        : undefined;
  return {
    principal: { kind: principal.kind, scopes: principal.scopes as string[] },
    tenant:
      only === undefined
        ? null
        : { id: only.tenantId, name: only.tenantName, workspaceType: only.workspaceType },
    user,
    memberships,
  };
}

export async function identityRoutes(
  app: FastifyInstance,
  { db, identity, clock }: { db: Database; identity: Identity; clock: Clock },
) {
  const tenants = new TenantDirectory(db, clock);
  // A session token's or API key's principal is one frozen object per credential (their verifiers'
  // caches): the body /v1/me answers for it is built once per credential and tenant summary (which
  // TenantDirectory renews each second), not per request.
  const bodies = new WeakMap<Principal, { tenant: KnownTenant | undefined; body: MeBody }>();
  const meBody = (principal: SessionPrincipal | ApiKeyPrincipal, tenant: KnownTenant | undefined) => {
    const built = bodies.get(principal);
    if (built !== undefined && built.tenant === tenant) return built.body;
    const body =
      principal.kind === 'session' ? sessionBody(principal, tenant) : apiKeyBody(principal, tenant);
    bodies.set(principal, { tenant, body });
    return body;
  };
  app.get(
    '/v1/me',
    {
      config: { auth: { credentials: ['api_key', 'session', 'hosted_user'] } },
      schema: {
        operationId: 'getMe',
        summary: 'Who the credential is: tenant, principal, and the key, actor or user behind it',
        tags: ['identity'],
        response: { 200: Me },
      },
    },
    (request) => {
      const principal = authenticated(request.principal);
      if (principal.kind === 'hosted_user') return hostedMe(db, principal);
      if (principal.kind === 'product') throw new Error('GET /v1/me does not take product keys');
      // No transaction per request (see TenantDirectory), nor a promise while the summary is fresh.
      const known = tenants.cached(principal.tenantId);
      if (known !== undefined) return meBody(principal, known.summary);
      return tenants.summary(principal.tenantId).then((tenant) => meBody(principal, tenant));
    },
  );

  app.get(
    '/api/auth/user',
    {
      config: { auth: { credentials: ['hosted_user'] } },
      schema: {
        operationId: 'getAuthUser',
        summary: 'The signed-in console user and their tenant memberships',
        tags: ['identity'],
        response: { 200: AuthUser },
      },
    },
    async (request) => {
      const { userId } = hostedUser(request.principal);
      const { user, memberships } = await userWithMemberships(db, userId);
      if (user === undefined) throw new Error('authenticated user vanished');
      return { user, memberships };
    },
  );

  app.get(
    '/.well-known/jwks.json',
    {
      schema: {
        operationId: 'getJwks',
        summary: 'Public keys that verify session tokens',
        tags: ['identity'],
        response: { 200: Jwks },
      },
    },
    async () => identity.keyRing.jwks(),
  );
}
