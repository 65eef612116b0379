import type { ServiceContext } from '../../../core/context.ts';
import { tenantTx } from '../../../core/db/tenant-tx.ts';
import { validated } from '../../../core/modules/validate.ts';
import { cursorProblems, rejectProblems } from '../input-rules.ts';
import { type ListEndpointsInput, ListQuery, type Page, type WebhookEndpoint } from '../schema.ts';
import { ENDPOINT_COLUMNS, type EndpointRow, endpointView, pageFrom } from '../views.ts';

/** Oldest first, so a page boundary never moves as endpoints are added. 1 to 100 a page, default 50. */
export async function listEndpoints(
  ctx: ServiceContext,
  input: ListEndpointsInput = {},
): Promise<Page<WebhookEndpoint>> {
  const query = validated<ListEndpointsInput>(ListQuery, input, 'query');
  rejectProblems(cursorProblems('webhookEndpoint', query.cursor, '/query/cursor'));
  const limit = query.limit ?? 50;
  const { rows } = await tenantTx(ctx.db, ctx, (tx) =>
    tx.query<EndpointRow>(
      `select ${ENDPOINT_COLUMNS} from webhook_endpoints
       where tenant_id = $1 and ($2::text is null or id > $2)
       order by id limit $3`,
      [ctx.tenantId, query.cursor ?? null, limit + 1],
    ),
  );
  return pageFrom(rows, limit, endpointView);
}
