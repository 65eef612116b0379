import assert from 'node:assert/strict';
import { bearer, type TestTenant } from '../../../../test/factories.ts';
import { call, type TestApp } from '../../../../test/helper.ts';

/** Switches rooms on for `tenant` with `config`, as its owner does in the console. */
export async function configureRooms(
  t: TestApp,
  tenant: TestTenant,
  config: Record<string, unknown>,
): Promise<void> {
  const res = await call(t.app, {
    method: 'PUT',
    url: `/api/console/tenants/${tenant.tenantId}/modules/rooms`,
    headers: bearer(tenant.ownerToken),
    payload: { enabled: true, config },
  });
  assert.equal(res.statusCode, 200, res.body);
}
