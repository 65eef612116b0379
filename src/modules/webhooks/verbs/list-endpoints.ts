import type { ServiceContext } from '../../../core/context.ts';
import { listPage } from '../../../core/http/list-page.ts';
import { PageQuery } from '../../../core/http/pagination.ts';
import { validated } from '../../../core/modules/validate.ts';
import type { ListEndpointsInput, WebhookEndpointPage } from '../schema.ts';
import { ENDPOINT_COLUMNS, type EndpointRow, endpointView } from '../views.ts';

/** Oldest first, so a page boundary never moves as endpoints are added. 1 to 100 a page, default 50. */
export async function listEndpoints(
  ctx: ServiceContext,
  input: ListEndpointsInput = {},
): Promise<WebhookEndpointPage> {
  const query = validated<ListEndpointsInput>(PageQuery, input, 'query');
  return listPage(ctx, query, {
    select: `select ${ENDPOINT_COLUMNS} from webhook_endpoints`,
    orderBy: 'id',
    textKey: true,
    ascending: true,
    keyOf: (row: EndpointRow) => row.id,
    view: endpointView,
  });
}
