import { generateProductKey } from '../auth/api-key-format.ts';
import type { TenantContext } from '../context.ts';
import type { Queryable } from '../db/database.ts';
import { tenantRead, tenantTx } from '../db/tenant-tx.ts';
import { NotFound } from '../http/errors.ts';
import { newId } from '../ids.ts';

export interface ProductKeyRecord {
  id: string;
  name: string;
  key: string;
  /** Browser origins the key may be used from; empty = any. */
  allowedOrigins: string[];
  /** Requests per minute one client address may make with the key. */
  rateLimitPerMinute: number;
  /** The operator the key speaks for, or null for the whole tenant. */
  operatorId: string | null;
  createdAt: string;
  revokedAt: string | null;
}

interface Row {
  id: string;
  name: string;
  key: string;
  allowed_origins: string[];
  rate_limit_per_minute: number;
  operator_id: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

const COLUMNS = 'id, name, key, allowed_origins, rate_limit_per_minute, operator_id, created_at, revoked_at';

const toRecord = (r: Row): ProductKeyRecord => ({
  id: r.id,
  name: r.name,
  key: r.key,
  allowedOrigins: r.allowed_origins,
  rateLimitPerMinute: r.rate_limit_per_minute,
  operatorId: r.operator_id,
  createdAt: r.created_at.toISOString(),
  revokedAt: r.revoked_at === null ? null : r.revoked_at.toISOString(),
});

/** Origins compare case-insensitively (scheme and host): stored lower-case, once each. */
const normalizeOrigins = (origins: readonly string[]) => [...new Set(origins.map((o) => o.toLowerCase()))];

export interface ProductKeyInput {
  name: string;
  allowedOrigins?: readonly string[] | undefined;
  rateLimitPerMinute?: number | undefined;
  /** Bind the key to an operator: the caller checked that the operator is the tenant's. */
  operatorId?: string | undefined;
}

export async function createProductKey(
  ctx: TenantContext,
  input: ProductKeyInput,
): Promise<ProductKeyRecord> {
  const { tenantId } = ctx;
  const { rows } = await tenantTx(ctx.db, { tenantId }, (tx) =>
    tx.query<Row>(
      `insert into product_keys (id, tenant_id, name, key, allowed_origins, rate_limit_per_minute, operator_id)
       values ($1, $2, $3, $4, $5, coalesce($6::integer, 600), $7)
       returning ${COLUMNS}`,
      [
        newId('productKey'),
        tenantId,
        input.name,
        generateProductKey('live'),
        normalizeOrigins(input.allowedOrigins ?? []),
        input.rateLimitPerMinute ?? null,
        input.operatorId ?? null,
      ],
    ),
  );
  const row = rows[0];
  if (row === undefined) throw new Error('product key insert returned nothing');
  return toRecord(row);
}

export async function listProductKeys(
  ctx: TenantContext,
  filter: { operatorId?: string } = {},
): Promise<ProductKeyRecord[]> {
  const { rows } = await tenantRead<Row>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select ${COLUMNS} from product_keys where ($1::text is null or operator_id = $1)
      order by created_at desc, id desc`,
    [filter.operatorId ?? null],
  );
  return rows.map(toRecord);
}

/**
 * Every instance drops its cached copy of the key at its next revocation poll. Instances re-read a cached
 * key within a minute anyway, so the row only has to outlive that.
 */
export async function announceProductKeyChange(
  tx: Queryable,
  tenantId: string,
  keyId: string,
  at: Date,
): Promise<void> {
  await tx.query(
    `insert into credential_revocations (tenant_id, kind, subject, revoked_at, expires_at)
     values ($1, 'product_key', $2, $3::timestamptz, $3::timestamptz + interval '10 minutes')
     on conflict (tenant_id, kind, subject) do update
       set seq = default, revoked_at = excluded.revoked_at, expires_at = excluded.expires_at`,
    [tenantId, keyId, at.toISOString()],
  );
}

export interface ProductKeyChanges {
  name?: string | undefined;
  allowedOrigins?: readonly string[] | undefined;
  rateLimitPerMinute?: number | undefined;
}

/** Renames a key or changes its limits; every instance applies the change within a second. */
export async function updateProductKey(
  ctx: TenantContext,
  { productKeyId: id, ...changes }: ProductKeyChanges & { productKeyId: string },
): Promise<ProductKeyRecord> {
  const { tenantId } = ctx;
  return tenantTx(ctx.db, { tenantId }, async (tx) => {
    const { rows } = await tx.query<Row>(
      `update product_keys set name = coalesce($2, name),
              allowed_origins = coalesce($3::text[], allowed_origins),
              rate_limit_per_minute = coalesce($4::integer, rate_limit_per_minute)
        where id = $1 returning ${COLUMNS}`,
      [
        id,
        changes.name ?? null,
        changes.allowedOrigins === undefined ? null : normalizeOrigins(changes.allowedOrigins),
        changes.rateLimitPerMinute ?? null,
      ],
    );
    const row = rows[0];
    if (row === undefined) throw new NotFound('product key', id);
    await announceProductKeyChange(tx, tenantId, id, new Date(ctx.clock.now()));
    return toRecord(row);
  });
}

/** Idempotent: revoking a revoked key returns it unchanged. Every instance refuses it within a second. */
export async function revokeProductKey(
  ctx: TenantContext,
  { productKeyId: id }: { productKeyId: string },
): Promise<ProductKeyRecord> {
  const { tenantId } = ctx;
  return tenantTx(ctx.db, { tenantId }, async (tx) => {
    const at = new Date(ctx.clock.now());
    const { rows } = await tx.query<Row>(
      `update product_keys set revoked_at = coalesce(revoked_at, $2::timestamptz) where id = $1
       returning ${COLUMNS}`,
      [id, at.toISOString()],
    );
    const row = rows[0];
    if (row === undefined) throw new NotFound('product key', id);
    await announceProductKeyChange(tx, tenantId, id, at);
    return toRecord(row);
  });
}
