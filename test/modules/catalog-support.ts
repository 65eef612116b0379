import type { TestTenant } from '../factories.ts';
import { bearer } from '../factories.ts';
import { call, type TestApp } from '../helper.ts';

/** One module of GET /v1/modules/catalog; `enabled` and `config` only for a caller with a credential. */
export interface CatalogEntry {
  name: string;
  actions: string[];
  eventTypes: string[];
  enabled?: boolean;
  config?: Record<string, unknown>;
}

/** PUT the tenant's rooms module settings, as its owner unless another console token is given. */
export const setRooms = (
  t: TestApp,
  who: TestTenant,
  body: Record<string, unknown>,
  token = who.ownerToken,
) =>
  call(t.app, {
    method: 'PUT',
    url: `/api/console/tenants/${who.tenantId}/modules/rooms`,
    headers: bearer(token),
    payload: body,
  });
