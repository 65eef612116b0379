import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../../config.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { tenantTx } from '../db/tenant-tx.ts';
import { AppError, InvalidRequest } from '../http/errors.ts';
import { newId } from '../ids.ts';
import type { ModuleEnablement } from '../modules/enablement.ts';
import type { ModuleRegistry } from '../modules/registry.ts';
import { ACTOR_EXTERNAL_ID, Actor, actorView, upsertActor } from '../tenancy/actors.ts';
import type { Identity } from './identity.ts';
import { sessionOf, tenantPrincipal } from './principal.ts';
import { ROOM_ID_PATTERN } from './room-id.ts';
import { assertKeyNotRevoked, SessionRevoker } from './session-revocation.ts';

const connectBody = (moduleNames: readonly string[]) =>
  Type.Object(
    {
      modules: Type.Array(Type.String({ minLength: 1, maxLength: 40 }), {
        minItems: 1,
        maxItems: 16,
        uniqueItems: true,
        description: `Modules the token is minted for: ${moduleNames.join(', ')}`,
      }),
      actor: Actor,
      roomId: Type.Optional(
        Type.String({ pattern: ROOM_ID_PATTERN, description: 'Limit the token to one room' }),
      ),
      scopes: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: 80 }), {
          minItems: 1,
          maxItems: 64,
          uniqueItems: true,
          description:
            'Narrow the token to these of the scopes its modules grant (default: all of them), e.g. `["sync:read"]` for a read-only collaborator',
        }),
      ),
    },
    {
      title: 'ConnectInput',
      description:
        'What a session token is minted for: its actor, its modules, optionally one room and fewer scopes',
      additionalProperties: false,
    },
  );

const Session = Type.Object(
  {
    token: Type.String(),
    tokenType: Type.Literal('Bearer'),
    expiresAt: Type.String({ format: 'date-time' }),
    expiresIn: Type.Integer({ description: 'Seconds until the token expires' }),
    sessionId: Type.String({ description: 'The token id (jti), for revocation' }),
    actor: Actor,
    modules: Type.Array(Type.String()),
    roomId: Type.Union([Type.String(), Type.Null()]),
    scopes: Type.Array(Type.String()),
  },
  {
    title: 'Session',
    description: 'A minted session token with the actor, modules, room and scopes it carries',
  },
);

const RevokeSessionsInput = Type.Object(
  {
    sessionId: Type.Optional(
      Type.String({ pattern: '^ses_[0-9a-z]{26}$', description: 'One token, by its id' }),
    ),
    actorId: Type.Optional(
      Type.String({
        pattern: ACTOR_EXTERNAL_ID,
        description: "Every token of one actor issued so far, by the actor's id (`<provider>:<external_id>`)",
      }),
    ),
  },
  {
    title: 'RevokeSessionsInput',
    description: 'Exactly one of: a session token by its id, or every token of an actor',
    additionalProperties: false,
    minProperties: 1,
    maxProperties: 1,
  },
);

const Revoked = Type.Object(
  { revoked: Type.Literal(true) },
  { title: 'Revoked', description: 'The revocation is recorded (repeating it answers the same)' },
);

interface Deps {
  db: Database;
  identity: Identity;
  config: Config;
  clock: Clock;
  enablement: ModuleEnablement;
  registry: ModuleRegistry;
}

export async function runtimeRoutes(
  app: FastifyInstance,
  { db, identity, config, clock, enablement, registry }: Deps,
) {
  const ConnectBody = connectBody(registry.names);
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const revoker = new SessionRevoker({ db, identity, clock, config });

  typed.post(
    '/v1/runtime/connect',
    {
      config: { auth: { credentials: ['api_key'], scope: 'sessions:manage' } },
      schema: {
        operationId: 'runtimeConnect',
        summary: 'Mint a short-lived session token for an end user, guest or agent',
        tags: ['runtime'],
        body: ConnectBody,
        response: { 201: Session },
      },
    },
    async (request, reply) => {
      const principal = tenantPrincipal(request.principal);
      const { tenantId } = principal;
      // Connect accepts API keys only: the key is recorded with the session, so revoking it revokes both.
      const apiKeyId = principal.kind === 'api_key' ? principal.apiKeyId : undefined;
      const body = request.body;
      const unknown = body.modules.filter((m) => registry.module(m) === undefined);
      if (unknown.length > 0) {
        throw new InvalidRequest(
          `unknown module: ${unknown.join(', ')}; this service runs: ${registry.names.join(', ')}`,
          unknown.map((m) => ({
            field: `/body/modules/${body.modules.indexOf(m)}`,
            message: `unknown module ${m}; known: ${registry.names.join(', ')}`,
            code: 'unknown_module',
          })),
        );
      }
      await enablement.assertEnabled(tenantId, body.modules);
      // The session is recorded with its actor and its API key in one transaction, so only ids this tenant
      // issued can be revoked by id; the token is signed after. The key's row is read FOR SHARE: a revocation
      // of the key either committed before (refused here) or waits for this row, and then its revocation
      // outlives this session too (core/tenancy/api-keys.ts reads the latest expiry of the key's sessions).
      const sessionId = newId('session', clock.now());
      const expiresAt = Math.floor(clock.now() / 1000) + config.sessionTtlSeconds;
      const actor = await tenantTx(db, { tenantId }, async (tx) => {
        if (apiKeyId !== undefined) await assertKeyNotRevoked(tx, apiKeyId);
        const upserted = await upsertActor(tx, tenantId, body.actor);
        await tx.query(
          'insert into issued_sessions (tenant_id, id, actor_id, expires_at, api_key_id) values ($1, $2, $3, to_timestamp($4), $5)',
          [tenantId, sessionId, upserted.id, expiresAt, apiKeyId ?? null],
        );
        return upserted;
      });
      const granted = registry.sessionScopesFor(body.modules);
      const notGranted = (body.scopes ?? []).filter((scope) => !granted.includes(scope));
      if (notGranted.length > 0) {
        throw new InvalidRequest(
          `scopes ${notGranted.join(', ')} are not granted to sessions of these modules; they grant: ${granted.join(', ')}`,
          notGranted.map((scope) => ({
            field: `/body/scopes/${(body.scopes ?? []).indexOf(scope)}`,
            message: `not a session scope of ${body.modules.join(', ')}`,
            code: 'scope_not_granted',
          })),
        );
      }
      const scopes = body.scopes === undefined ? granted : granted.filter((s) => body.scopes?.includes(s));
      const minted = await identity.sessions.mint({
        tenantId,
        actor,
        modules: body.modules,
        roomId: body.roomId,
        scopes,
        ttlSeconds: config.sessionTtlSeconds,
        jti: sessionId,
        ...(apiKeyId === undefined ? {} : { mintedBy: apiKeyId }),
      });
      reply.status(201);
      return {
        token: minted.token,
        tokenType: 'Bearer' as const,
        expiresAt: new Date(minted.expiresAt).toISOString(),
        expiresIn: Math.round((minted.expiresAt - clock.now()) / 1000),
        sessionId: minted.jti,
        actor: actorView(actor),
        modules: body.modules,
        roomId: body.roomId ?? null,
        scopes,
      };
    },
  );

  typed.post(
    '/v1/runtime/sessions/revoke',
    {
      config: { auth: { credentials: ['api_key'], scope: 'sessions:manage' } },
      schema: {
        operationId: 'revokeSessions',
        summary: 'Revoke one session token, or every token of an actor; effective within a second everywhere',
        tags: ['runtime'],
        body: RevokeSessionsInput,
        response: { 200: Revoked },
      },
    },
    async (request) => {
      const { tenantId } = tenantPrincipal(request.principal);
      const body = request.body;
      if (body.actorId !== undefined) {
        await revoker.actorSessions(tenantId, body.actorId);
      } else if (body.sessionId !== undefined) {
        await revoker.session(tenantId, body.sessionId);
      } else {
        throw new AppError('invalid_request', 'send sessionId or actorId');
      }
      return { revoked: true as const };
    },
  );

  typed.delete(
    '/v1/runtime/session',
    {
      config: { auth: { credentials: ['session'] } },
      schema: {
        operationId: 'endSession',
        summary: 'Sign out: revoke the session token that makes this call',
        tags: ['runtime'],
        response: { 200: Revoked },
      },
    },
    async (request) => {
      const { sessionId, tenantId } = sessionOf(request.principal);
      await revoker.signOut(tenantId, sessionId);
      return { revoked: true as const };
    },
  );
}
