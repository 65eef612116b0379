import type { Database } from '../../core/db/database.ts';
import { tenantRead, tenantTx } from '../../core/db/tenant-tx.ts';
import type { ActionDefinition } from '../../core/modules/manifest.ts';

/**
 * Which tools need a human before they run, per tenant. A tool hinted `always` needs one under every
 * policy: the module author's floor, which a tenant can raise but not lower.
 * - `required_only`: only tools hinted `always`.
 * - `destructive` (default): also destructive tools (access or hint `destructive`).
 * - `writes`: also every tool that changes data.
 * - `all`: every tool, reads included.
 */
export const CONFIRM_POLICIES = ['required_only', 'destructive', 'writes', 'all'] as const;
export type ConfirmPolicy = (typeof CONFIRM_POLICIES)[number];
export const DEFAULT_CONFIRM_POLICY: ConfirmPolicy = 'destructive';

export function needsConfirmation(policy: ConfirmPolicy, action: ActionDefinition): boolean {
  if (action.confirmation === 'always' || policy === 'all') return true;
  if (policy === 'required_only') return false;
  const destructive = action.access === 'destructive' || action.confirmation === 'destructive';
  return destructive || (policy === 'writes' && action.access !== 'read');
}

export interface StoredPolicy {
  confirm: ConfirmPolicy;
  /** null while the tenant runs on the default. */
  updatedAt: string | null;
}

export async function readPolicy(db: Database, tenantId: string): Promise<StoredPolicy> {
  const { rows } = await tenantRead<{ confirm: ConfirmPolicy; updated_at: Date }>(
    db,
    { tenantId },
    'select confirm, updated_at from mcp_policies where tenant_id = $1',
    [tenantId],
  );
  const row = rows[0];
  if (row === undefined) return { confirm: DEFAULT_CONFIRM_POLICY, updatedAt: null };
  return { confirm: row.confirm, updatedAt: row.updated_at.toISOString() };
}

export async function writePolicy(
  db: Database,
  tenantId: string,
  confirm: ConfirmPolicy,
  now: number,
): Promise<StoredPolicy> {
  const updatedAt = new Date(now);
  await tenantTx(db, { tenantId }, (tx) =>
    tx.query(
      `insert into mcp_policies (tenant_id, confirm, updated_at) values ($1, $2, $3)
       on conflict (tenant_id) do update set confirm = excluded.confirm, updated_at = excluded.updated_at`,
      [tenantId, confirm, updatedAt],
    ),
  );
  return { confirm, updatedAt: updatedAt.toISOString() };
}
