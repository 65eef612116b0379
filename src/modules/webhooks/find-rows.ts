import type { Queryable } from '../../core/db/database.ts';
import { NotFound } from '../../core/http/errors.ts';
import { isId } from './ids.ts';
import { DELIVERY_COLUMNS, type DeliveryRow, ENDPOINT_COLUMNS, type EndpointRow } from './views.ts';

interface Lookup {
  kind: 'webhookEndpoint' | 'webhookDelivery';
  noun: string;
  table: string;
  columns: string;
}

/** The row of this tenant, or NotFound (also for ids of another kind or another tenant). */
async function findRow<Row>(
  lookup: Lookup,
  tx: Queryable,
  tenantId: string,
  id: unknown,
  forUpdate: boolean,
  notFound?: (id: string) => Error,
): Promise<Row> {
  if (!isId(lookup.kind, id))
    throw new NotFound(lookup.noun, typeof id === 'string' && id.length <= 64 ? id : undefined);
  const { rows } = await tx.query<Row & object>(
    `select ${lookup.columns} from ${lookup.table} where tenant_id = $1 and id = $2
     ${forUpdate ? 'for update' : ''}`,
    [tenantId, id],
  );
  const row = rows[0];
  if (row === undefined) throw notFound?.(id) ?? new NotFound(lookup.noun, id);
  return row;
}

const ENDPOINTS: Lookup = {
  kind: 'webhookEndpoint',
  noun: 'webhook endpoint',
  table: 'webhook_endpoints',
  columns: ENDPOINT_COLUMNS,
};
const DELIVERIES: Lookup = {
  kind: 'webhookDelivery',
  noun: 'webhook delivery',
  table: 'webhook_deliveries',
  columns: `${DELIVERY_COLUMNS}, body`,
};

export function findEndpoint(
  tx: Queryable,
  tenantId: string,
  id: unknown,
  options: { forUpdate?: boolean } = {},
): Promise<EndpointRow> {
  return findRow(ENDPOINTS, tx, tenantId, id, options.forUpdate === true);
}

/** The delivery row with its body; `notFound` words the 404 for a well-formed id (see deliveryNotFound). */
export function findDelivery(
  tx: Queryable,
  tenantId: string,
  id: unknown,
  options: { forUpdate?: boolean; notFound?: (id: string) => Error } = {},
): Promise<DeliveryRow & { body: string }> {
  return findRow(DELIVERIES, tx, tenantId, id, options.forUpdate === true, options.notFound);
}
