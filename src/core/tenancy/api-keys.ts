import { generateApiKey } from '../auth/api-key-format.ts';
import type { TenantContext } from '../context.ts';
import { tenantRead, tenantTx } from '../db/tenant-tx.ts';
import { InvalidRequest, NotFound } from '../http/errors.ts';
import { newId } from '../ids.ts';

export interface ApiKeyRecord {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

interface ApiKeyRow {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
}

const COLUMNS = 'id, name, prefix, scopes, created_at, last_used_at, expires_at, revoked_at';
const iso = (d: Date | null) => (d === null ? null : d.toISOString());

function toApiKey(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: iso(row.last_used_at),
    expiresAt: iso(row.expires_at),
    revokedAt: iso(row.revoked_at),
  };
}

export interface CreateApiKeyInput {
  name: string;
  scopes: string[];
  /** The scopes a key may carry (the module registry's `knownScopes`); `*` is always allowed. */
  knownScopes: readonly string[];
  expiresAt?: string | undefined;
  createdBy?: string | undefined;
  env?: 'live' | 'test';
}

/** Returns the key's secret exactly once; only its SHA-256 is stored. */
export async function createApiKey(
  ctx: TenantContext,
  input: CreateApiKeyInput,
): Promise<ApiKeyRecord & { key: string }> {
  const { db, tenantId } = ctx;
  const now = ctx.clock.now();
  const known = new Set(['*', ...input.knownScopes]);
  const unknown = input.scopes.filter((s) => !known.has(s));
  if (unknown.length > 0) {
    throw new InvalidRequest(
      `unknown scope: ${unknown.join(', ')}`,
      unknown.map((s) => ({
        field: `/body/scopes/${input.scopes.indexOf(s)}`,
        message: `unknown scope ${s}`,
        code: 'unknown_scope',
      })),
    );
  }
  if (input.expiresAt !== undefined && Date.parse(input.expiresAt) <= now) {
    throw new InvalidRequest('expiresAt must be in the future', [
      { field: '/body/expiresAt', message: 'must be in the future', code: 'in_past' },
    ]);
  }
  const { key, prefix, hash } = generateApiKey(input.env ?? 'live');
  const { rows } = await tenantTx(db, { tenantId }, (tx) =>
    tx.query<ApiKeyRow>(
      `insert into api_keys (id, tenant_id, name, prefix, secret_hash, scopes, created_by, expires_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8) returning ${COLUMNS}`,
      [
        newId('apiKey', now),
        tenantId,
        input.name,
        prefix,
        hash,
        [...new Set(input.scopes)],
        input.createdBy ?? null,
        input.expiresAt ?? null,
      ],
    ),
  );
  const row = rows[0];
  if (row === undefined) throw new Error('api key insert returned nothing');
  return { ...toApiKey(row), key };
}

export async function listApiKeys(ctx: TenantContext): Promise<ApiKeyRecord[]> {
  const { rows } = await tenantRead<ApiKeyRow>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select ${COLUMNS} from api_keys order by created_at desc, id desc`,
  );
  return rows.map(toApiKey);
}

/** Idempotent: revoking a revoked key returns it unchanged. Every instance drops it within a second. */
export async function revokeApiKey(ctx: TenantContext, { keyId }: { keyId: string }): Promise<ApiKeyRecord> {
  const { tenantId } = ctx;
  return tenantTx(ctx.db, { tenantId }, async (tx) => {
    const at = new Date(ctx.clock.now());
    const { rows } = await tx.query<ApiKeyRow>(
      `update api_keys set revoked_at = coalesce(revoked_at, $2::timestamptz) where id = $1 returning ${COLUMNS}`,
      [keyId, at.toISOString()],
    );
    const row = rows[0];
    if (row === undefined) throw new NotFound('api key', keyId);
    // Instances re-read a cached key within a minute anyway (ApiKeyVerifier's cache TTL); the row only has to
    // outlive that and every session token the key minted (they are revoked with it: core/auth/session-tokens.ts).
    await tx.query(
      `insert into credential_revocations (tenant_id, kind, subject, revoked_at, expires_at)
       values ($1, 'api_key', $2, $3::timestamptz, greatest($3::timestamptz + interval '10 minutes',
         (select max(expires_at) + interval '1 minute' from issued_sessions where api_key_id = $2)))
       on conflict (tenant_id, kind, subject) do nothing`,
      [tenantId, keyId, at.toISOString()],
    );
    return toApiKey(row);
  });
}
