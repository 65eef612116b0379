import { MODULE_NAMES } from '../auth/scopes.ts';
import type { Database, Queryable } from '../db/database.ts';
import { tenantTx } from '../db/tenant-tx.ts';
import { AppError } from '../http/errors.ts';

/** Tenant setup step: a new tenant starts with every module enabled. */
export async function enableAllModules(tx: Queryable, tenantId: string): Promise<void> {
  await tx.query(
    `insert into tenant_modules (tenant_id, module, enabled)
     select $1, m, true from unnest($2::text[]) as m
     on conflict (tenant_id, module) do nothing`,
    [tenantId, [...MODULE_NAMES]],
  );
}

export async function enabledModules(tx: Queryable): Promise<Set<string>> {
  const { rows } = await tx.query<{ module: string }>('select module from tenant_modules where enabled');
  return new Set(rows.map((r) => r.module));
}

/** Refuses with 403 module_disabled naming the first module the tenant has switched off. */
export async function assertModulesEnabled(
  db: Database,
  tenantId: string,
  modules: readonly string[],
): Promise<void> {
  const enabled = await tenantTx(db, { tenantId }, enabledModules);
  const disabled = modules.find((m) => !enabled.has(m));
  if (disabled !== undefined) {
    throw new AppError('module_disabled', `the ${disabled} module is disabled for this tenant`);
  }
}
