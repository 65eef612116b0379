import { generateProductKey } from '../auth/api-key-format.ts';
import type { TenantContext } from '../context.ts';
import { tenantRead, tenantTx } from '../db/tenant-tx.ts';
import { NotFound } from '../http/errors.ts';
import { newId } from '../ids.ts';

export interface ProductKeyRecord {
  id: string;
  name: string;
  key: string;
  createdAt: string;
  revokedAt: string | null;
}

interface Row {
  id: string;
  name: string;
  key: string;
  created_at: Date;
  revoked_at: Date | null;
}

const toRecord = (r: Row): ProductKeyRecord => ({
  id: r.id,
  name: r.name,
  key: r.key,
  createdAt: r.created_at.toISOString(),
  revokedAt: r.revoked_at === null ? null : r.revoked_at.toISOString(),
});

export async function createProductKey(
  ctx: TenantContext,
  { name }: { name: string },
): Promise<ProductKeyRecord> {
  const { tenantId } = ctx;
  const { rows } = await tenantTx(ctx.db, { tenantId }, (tx) =>
    tx.query<Row>(
      `insert into product_keys (id, tenant_id, name, key) values ($1, $2, $3, $4)
       returning id, name, key, created_at, revoked_at`,
      [newId('productKey', ctx.clock.now()), tenantId, name, generateProductKey('live')],
    ),
  );
  const row = rows[0];
  if (row === undefined) throw new Error('product key insert returned nothing');
  return toRecord(row);
}

export async function listProductKeys(ctx: TenantContext): Promise<ProductKeyRecord[]> {
  const { rows } = await tenantRead<Row>(
    ctx.db,
    { tenantId: ctx.tenantId },
    'select id, name, key, created_at, revoked_at from product_keys order by created_at desc, id desc',
  );
  return rows.map(toRecord);
}

export async function revokeProductKey(
  ctx: TenantContext,
  { productKeyId: id }: { productKeyId: string },
): Promise<ProductKeyRecord> {
  const { rows } = await tenantTx(ctx.db, { tenantId: ctx.tenantId }, (tx) =>
    tx.query<Row>(
      `update product_keys set revoked_at = coalesce(revoked_at, now()) where id = $1
       returning id, name, key, created_at, revoked_at`,
      [id],
    ),
  );
  const row = rows[0];
  if (row === undefined) throw new NotFound('product key', id);
  return toRecord(row);
}
