import type { SystemContext } from '../contexts.ts';
import type { Database } from '../db/database.ts';
import { systemRead, tenantRead, tenantTx } from '../db/tenant-tx.ts';
import { newId } from '../ids.ts';
import type { Role, WorkspaceType } from './roles.ts';

export interface TenantRecord {
  id: string;
  name: string;
  workspaceType: WorkspaceType;
  createdAt: string;
}

interface TenantRow {
  id: string;
  name: string;
  workspace_type: WorkspaceType;
  created_at: Date;
}

export function toTenant(row: TenantRow): TenantRecord {
  return {
    id: row.id,
    name: row.name,
    workspaceType: row.workspace_type,
    createdAt: row.created_at.toISOString(),
  };
}

/** Hooks that run inside the tenant-creation transaction (e.g. enabling every module). */
export type TenantSetupStep = (tx: import('../db/database.ts').Queryable, tenantId: string) => Promise<void>;

/**
 * Who owns a new tenant: a user who exists (the console's caller), or, from `svc tenants create`, an email
 * address: an owner invitation that becomes the membership when that address signs in through the hosted
 * auth provider with its email verified (see users.ts).
 */
export type TenantOwner = { ownerUserId: string } | { ownerEmail: string };

export async function createTenant(
  { db, clock }: SystemContext,
  input: { name: string; workspaceType: WorkspaceType } & TenantOwner,
  setupSteps: readonly TenantSetupStep[] = [],
): Promise<TenantRecord> {
  const now = clock.now();
  const id = newId('tenant', now);
  return tenantTx(db, { tenantId: id }, async (tx) => {
    const { rows } = await tx.query<TenantRow>(
      'insert into tenants (id, name, workspace_type) values ($1, $2, $3) returning id, name, workspace_type, created_at',
      [id, input.name, input.workspaceType],
    );
    if ('ownerUserId' in input) {
      await tx.query(`insert into memberships (tenant_id, user_id, role) values ($1, $2, 'owner')`, [
        id,
        input.ownerUserId,
      ]);
    } else {
      await tx.query(`insert into invitations (id, tenant_id, email, role) values ($1, $2, $3, 'owner')`, [
        newId('invitation', now),
        id,
        input.ownerEmail.trim().toLowerCase(),
      ]);
    }
    for (const step of setupSteps) await step(tx, id);
    const row = rows[0];
    if (row === undefined) throw new Error('tenant insert returned nothing');
    return toTenant(row);
  });
}

export async function getTenant(db: Database, tenantId: string): Promise<TenantRecord | undefined> {
  const { rows } = await tenantRead<TenantRow>(
    db,
    { tenantId },
    'select id, name, workspace_type, created_at from tenants where id = $1',
    [tenantId],
  );
  return rows[0] === undefined ? undefined : toTenant(rows[0]);
}

export interface TenantMembership {
  tenant: TenantRecord;
  role: Role;
}

export async function listUserTenants(db: Database, userId: string): Promise<TenantMembership[]> {
  const { rows } = await systemRead<TenantRow & { role: Role }>(
    db,
    `select t.id, t.name, t.workspace_type, t.created_at, m.role
         from memberships m join tenants t on t.id = m.tenant_id
        where m.user_id = $1 order by t.created_at, t.id`,
    [userId],
  );
  return rows.map((row) => ({ tenant: toTenant(row), role: row.role }));
}

export async function membershipRole(
  db: Database,
  tenantId: string,
  userId: string,
): Promise<Role | undefined> {
  const { rows } = await tenantRead<{ role: Role }>(
    db,
    { tenantId },
    'select role from memberships where user_id = $1',
    [userId],
  );
  return rows[0]?.role;
}
