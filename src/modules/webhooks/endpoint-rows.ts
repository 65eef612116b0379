import type { Queryable } from '../../core/db/database.ts';
import { NotFound } from '../../core/http/errors.ts';
import { isId } from '../../core/ids.ts';
import { ENDPOINT_COLUMNS, type EndpointRow } from './views.ts';

/** The endpoint row of this tenant, or NotFound (also for ids of another kind or another tenant). */
export async function findEndpoint(
  tx: Queryable,
  tenantId: string,
  id: unknown,
  options: { forUpdate?: boolean } = {},
): Promise<EndpointRow> {
  if (!isId('webhookEndpoint', id))
    throw new NotFound('webhook endpoint', typeof id === 'string' && id.length <= 64 ? id : undefined);
  const { rows } = await tx.query<EndpointRow>(
    `select ${ENDPOINT_COLUMNS} from webhook_endpoints where tenant_id = $1 and id = $2
     ${options.forUpdate === true ? 'for update' : ''}`,
    [tenantId, id],
  );
  const row = rows[0];
  if (row === undefined) throw new NotFound('webhook endpoint', id);
  return row;
}
