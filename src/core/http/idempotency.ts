import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { tenantRead } from '../db/tenant-tx.ts';
import { AppError, InvalidRequest } from './errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route honours `Idempotency-Key`: a retry with the same key gets the first response again. */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    /** The key this request holds (`running`) until its response is stored. */
    idempotencyClaim: (IdempotencyBinding & { tenantId: string }) | undefined;
  }
}

/**
 * The key a request holds, for a handler that creates something: stored on the row it creates (unique per
 * tenant and key), so a retry whose first attempt made it and then lost its answer (a crash, a 5xx) finds
 * it instead of making another. `key` is the key as stored (a session's is its actor's); `fingerprint`
 * tells the same request from another one that reuses the key.
 */
export interface IdempotencyBinding {
  key: string;
  fingerprint: string;
}

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const IDEMPOTENCY_LIMITS = {
  keyLength: 255,
  /** How long a stored response is replayed. */
  windowMs: 24 * 3_600_000,
  /**
   * A key still `running` this long after its request started is taken to have died with its instance; a
   * retry of the same request may then run it again (a route that binds its effect to the key finds it).
   */
  leaseMs: 5 * 60_000,
} as const;

/** Printable ASCII without spaces at the ends: what a client generates (a UUID, a hash, an order id). */
const KEY = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/** The same request: method, path with query, and the body with keys in a canonical order. */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${url}\n${canonicalJson(body ?? null)}`)
    .digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function keyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers[IDEMPOTENCY_HEADER];
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw.join(',') : raw;
  if (key.length === 0 || key.length > IDEMPOTENCY_LIMITS.keyLength || !KEY.test(key)) {
    throw new InvalidRequest(
      `Idempotency-Key must be 1 to ${IDEMPOTENCY_LIMITS.keyLength} printable ASCII characters`,
      [
        {
          field: '/headers/idempotency-key',
          message: `1 to ${IDEMPOTENCY_LIMITS.keyLength} printable ASCII characters`,
          code: 'invalid_key',
        },
      ],
    );
  }
  return key;
}

/**
 * A session's key as stored: its actor's, hashed. It starts with a space, which no key a client sends
 * may, so it can never meet an API key's key.
 */
function actorKey(actorId: string, key: string): string {
  return ` actor ${createHash('sha256').update(`${actorId}\t${key}`).digest('hex')}`;
}

interface StoredKey {
  fingerprint: string;
  state: 'running' | 'done';
  status_code: number | null;
  content_type: string | null;
  body: string | null;
}

/**
 * `Idempotency-Key` for every route whose config says `idempotent: true` (tenant routes): the first
 * request with a key claims it (one insert, so two instances cannot both claim it) and its response —
 * status, content type and body, byte for byte — is stored for 24 h and replayed to a retry that sends the
 * same request (`Idempotent-Replayed: true`). The same key with another method, path or body answers 409
 * `idempotency_conflict`; a retry while the first is still running answers 409 `conflict` and runs nothing.
 * Responses of 5xx are not stored: the key is released so a retry runs again. Requests refused before
 * their handler (authentication, validation) claim nothing.
 *
 * The stored response is written after the handler, not in its transaction: an instance that dies in
 * between (or a 5xx after the change committed) leaves the change made and the key free again for the same
 * request after the lease. A route whose handler creates something therefore binds it to the key
 * (`idempotencyBinding`): the row carries the key, unique per tenant, and the handler looks for it before
 * making anything, so the retry answers what the first attempt made (payments and refunds do).
 */
export function installIdempotency(app: FastifyInstance, db: Database, clock: Clock): void {
  app.decorateRequest('idempotencyClaim', undefined);

  const claimKey = async (request: FastifyRequest, reply: FastifyReply) => {
    const sent = keyOf(request);
    const principal = request.principal;
    const tenantId = principal?.tenantId;
    if (sent === undefined || principal === undefined || tenantId === undefined) return;
    // An API key's keys are the tenant's (its servers share them, as with Stripe); an end user's are
    // their own, so two users who pick the same key never see each other's response.
    const key = principal.kind === 'session' ? actorKey(principal.actor.id, sent) : sent;
    const fingerprint = requestFingerprint(request.method, request.url, request.body);
    const now = clock.now();
    const scope = { tenantId };
    // Claims a new key, or one whose stored response is past the window, or whose request was abandoned.
    const { rows: claimed } = await tenantRead<{ key: string }>(
      db,
      scope,
      `insert into idempotency_keys (tenant_id, key, fingerprint, state, created_at, locked_until)
       values (current_setting('svc.tenant_id'), $1, $2, 'running', $3, $4)
       on conflict (tenant_id, key) do update
         set fingerprint = excluded.fingerprint, state = 'running', status_code = null, content_type = null,
             body = null, created_at = excluded.created_at, locked_until = excluded.locked_until
       where idempotency_keys.created_at < $5
          or (idempotency_keys.state = 'running' and idempotency_keys.locked_until < $3
              and idempotency_keys.fingerprint = excluded.fingerprint)
       returning key`,
      [
        key,
        fingerprint,
        new Date(now).toISOString(),
        new Date(now + IDEMPOTENCY_LIMITS.leaseMs).toISOString(),
        new Date(now - IDEMPOTENCY_LIMITS.windowMs).toISOString(),
      ],
    );
    if (claimed.length > 0) {
      request.idempotencyClaim = { tenantId, key, fingerprint };
      return;
    }
    const { rows } = await tenantRead<StoredKey>(
      db,
      scope,
      'select fingerprint, state, status_code, content_type, body from idempotency_keys where key = $1',
      [key],
    );
    const stored = rows[0];
    if (stored === undefined) {
      throw new AppError('conflict', 'a request with this Idempotency-Key just finished; retry it');
    }
    if (stored.fingerprint !== fingerprint) throw keyReused();
    if (stored.state === 'running' || stored.status_code === null) {
      throw new AppError(
        'conflict',
        'a request with this Idempotency-Key is still running; retry once it has finished',
      );
    }
    reply.code(stored.status_code);
    reply.header('idempotent-replayed', 'true');
    if (stored.content_type !== null) reply.header('content-type', stored.content_type);
    request.idempotencyClaim = undefined;
    return reply.send(stored.body ?? '');
  };

  const storeResponse = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const claim = request.idempotencyClaim;
    if (claim === undefined) return payload;
    request.idempotencyClaim = undefined;
    const scope = { tenantId: claim.tenantId };
    if (reply.statusCode >= 500 || (typeof payload !== 'string' && payload !== null)) {
      await tenantRead(db, scope, 'delete from idempotency_keys where key = $1 and state = $2', [
        claim.key,
        'running',
      ]);
      return payload;
    }
    const contentType = reply.getHeader('content-type');
    await tenantRead(
      db,
      scope,
      `update idempotency_keys set state = 'done', status_code = $2, content_type = $3, body = $4
        where key = $1 and state = 'running'`,
      [claim.key, reply.statusCode, typeof contentType === 'string' ? contentType : null, payload ?? ''],
    );
    return payload;
  };

  // Route hooks of the idempotent routes only, first among their own: every other request (reads, most
  // writes) runs no hook of this feature at all.
  app.addHook('onRoute', (route) => {
    if (route.config?.idempotent !== true) return;
    route.preHandler = [claimKey, ...routeHooks(route.preHandler)];
    route.onSend = [storeResponse, ...routeHooks(route.onSend)];
  });
}

/** A route option's hooks as a list (Fastify takes one function or an array). */
function routeHooks<H>(hooks: H | H[] | undefined): H[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}

/** 409 `idempotency_conflict`: the key was used with another request (method, path or body). */
export function keyReused(): AppError {
  return new AppError(
    'idempotency_conflict',
    'this Idempotency-Key was used with another request (method, path or body); use a new key for a new request',
  );
}

/** The key the request holds, for its handler to store on what it creates; undefined without a key. */
export function idempotencyBinding(request: FastifyRequest): IdempotencyBinding | undefined {
  const claim = request.idempotencyClaim;
  return claim === undefined ? undefined : { key: claim.key, fingerprint: claim.fingerprint };
}

/** The answer a retry gets when its handler found what an earlier attempt under the key made. */
export function markReplayed(reply: FastifyReply): void {
  reply.header('idempotent-replayed', 'true');
}

/** The route schema's `headers` for a route with `idempotent: true`, so OpenAPI documents the header. */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: IDEMPOTENCY_LIMITS.keyLength,
      description:
        'Your unique id for this request (e.g. a UUID): a retry with the same key and body gets the first response again, kept 24 hours',
    }),
  ),
});
