import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../../config.ts';
import type { Clock } from '../clock.ts';
import type { Database, Queryable } from '../db/database.ts';
import { tenantTx } from '../db/tenant-tx.ts';
import { AppError, InvalidRequest, NotFound } from '../http/errors.ts';
import { newId } from '../ids.ts';
import type { ModuleEnablement } from '../modules/enablement.ts';
import type { ModuleRegistry } from '../modules/registry.ts';
import { Actor, upsertActor } from '../tenancy/actors.ts';
import type { Identity } from './identity.ts';
import { sessionOf, tenantPrincipal } from './principal.ts';
import { ActorSchema } from './routes.ts';

/** Room ids are prefix-style (`room_...`) or a client's own URL-safe id. */
export const ROOM_ID_PATTERN = '^[A-Za-z0-9_-]{1,128}$';

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
    { additionalProperties: false },
  );

const ConnectResponse = Type.Object({
  token: Type.String(),
  tokenType: Type.Literal('Bearer'),
  expiresAt: Type.String({ format: 'date-time' }),
  expiresIn: Type.Integer({ description: 'Seconds until the token expires' }),
  sessionId: Type.String({ description: 'The token id (jti), for revocation' }),
  actor: ActorSchema,
  modules: Type.Array(Type.String()),
  roomId: Type.Union([Type.String(), Type.Null()]),
  scopes: Type.Array(Type.String()),
});

const RevokeBody = Type.Object(
  {
    sessionId: Type.Optional(
      Type.String({ pattern: '^ses_[0-9a-z]{26}$', description: 'One token, by its id' }),
    ),
    actorId: Type.Optional(
      Type.String({ format: 'uuid', description: 'Every token of one actor issued so far' }),
    ),
  },
  { additionalProperties: false, minProperties: 1, maxProperties: 1 },
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
  // A revocation matters until every token it voids has expired (the same bound as its row's expires_at).
  const retainFor = (config.sessionTtlSeconds + 60) * 1000;

  typed.post(
    '/v1/runtime/connect',
    {
      config: { auth: { credentials: ['api_key'], scope: 'sessions:manage' } },
      schema: {
        operationId: 'runtimeConnect',
        summary: 'Mint a short-lived session token for an end user, guest or agent',
        tags: ['runtime'],
        body: ConnectBody,
        response: { 201: ConnectResponse },
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
        actor,
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
        body: RevokeBody,
        response: { 200: Type.Object({ revoked: Type.Literal(true) }) },
      },
    },
    async (request) => {
      const { tenantId } = tenantPrincipal(request.principal);
      const body = request.body;
      if (body.actorId !== undefined) {
        const actorId = body.actorId;
        const at = clock.now();
        await tenantTx(db, { tenantId }, async (tx) => {
          const { rows } = await tx.query('select 1 from actors where id = $1', [actorId]);
          if (rows.length === 0) throw new NotFound('actor', actorId);
          await recordRevocation(tx, tenantId, 'actor_sessions', actorId, at, retainFor);
        });
        identity.revocations.apply('actor_sessions', tenantId, actorId, at, at + retainFor);
      } else if (body.sessionId !== undefined) {
        const sessionId = body.sessionId;
        const at = clock.now();
        await tenantTx(db, { tenantId }, async (tx) => {
          const { rows } = await tx.query('select 1 from issued_sessions where id = $1', [sessionId]);
          if (rows.length === 0) throw new NotFound('session', sessionId);
          await recordRevocation(tx, tenantId, 'session', sessionId, at, retainFor);
        });
        identity.revocations.apply('session', tenantId, sessionId, at, at + retainFor);
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
        response: { 200: Type.Object({ revoked: Type.Literal(true) }) },
      },
    },
    async (request) => {
      const { sessionId, tenantId } = sessionOf(request.principal);
      const at = clock.now();
      await tenantTx(db, { tenantId }, (tx) =>
        recordRevocation(tx, tenantId, 'session', sessionId, at, retainFor),
      );
      identity.revocations.apply('session', tenantId, sessionId, at, at + retainFor);
      return { revoked: true as const };
    },
  );
}

/** The minting key, locked against a concurrent revocation; a key revoked already mints nothing. */
async function assertKeyNotRevoked(tx: Queryable, apiKeyId: string): Promise<void> {
  const { rows } = await tx.query<{ revoked_at: Date | null }>(
    'select revoked_at from api_keys where id = $1 for share',
    [apiKeyId],
  );
  if (rows[0] === undefined || rows[0].revoked_at !== null) {
    throw new AppError('invalid_api_key', 'the API key is not valid: unknown, revoked, expired or malformed');
  }
}

/**
 * One row per revoked token or actor. Revoking again refreshes the row with a new sequence number, so
 * every instance's poll applies it (an actor revoked again voids the tokens minted since the last time).
 */
async function recordRevocation(
  tx: Queryable,
  tenantId: string,
  kind: 'session' | 'actor_sessions',
  subject: string,
  /** When (the app's clock), and for how long the row matters (ms): revocation times are all on it. */
  at: number,
  retainForMs: number,
): Promise<void> {
  await tx.query(
    `insert into credential_revocations (tenant_id, kind, subject, revoked_at, expires_at)
     values ($1, $2, $3, $4::timestamptz, $5::timestamptz)
     on conflict (tenant_id, kind, subject) do update
       set seq = default, revoked_at = excluded.revoked_at, expires_at = excluded.expires_at`,
    [tenantId, kind, subject, new Date(at).toISOString(), new Date(at + retainForMs).toISOString()],
  );
}
