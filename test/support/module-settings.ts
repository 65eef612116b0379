import assert from 'node:assert/strict';
import { bearer, type TestTenant } from '../factories.ts';
import { call, type TestApp } from '../helper.ts';

/** A module's settings for a tenant, as the console's modules page sends them. */
export interface ModuleSettings {
  enabled: boolean;
  config?: Record<string, unknown>;
}

/** Sets `module` for `tenant` as its owner does in the console (PUT .../modules/:module); asserts 200. */
export async function setModule(
  t: TestApp,
  tenant: TestTenant,
  module: string,
  settings: ModuleSettings,
): Promise<void> {
  const res = await call(t.app, {
    method: 'PUT',
    url: `/api/console/tenants/${tenant.tenantId}/modules/${module}`,
    headers: bearer(tenant.ownerToken),
    payload: settings,
  });
  assert.equal(res.statusCode, 200, res.body);
}

/** Switches `module` on for `tenant` with `config`, as its owner does in the console. */
export function enableModule(
  t: TestApp,
  tenant: TestTenant,
  module: string,
  config: Record<string, unknown>,
): Promise<void> {
  return setModule(t, tenant, module, { enabled: true, config });
}
