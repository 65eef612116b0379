import { tenantTx } from '../../../core/db/tenant-tx.ts';
import type { Page, WebhookCtx, WebhookEndpoint } from '../types.ts';
import { checkCursor, checkLimit, Problems } from '../validate.ts';
import { ENDPOINT_COLUMNS, type EndpointRow, endpointView } from '../views.ts';

export interface ListEndpointsInput {
  /** 1 to 100, default 50. */
  limit?: number;
  cursor?: string | null;
}

/** Oldest first, so a page boundary never moves as endpoints are added. */
export async function listEndpoints(
  ctx: WebhookCtx,
  input: ListEndpointsInput = {},
): Promise<Page<WebhookEndpoint>> {
  const problems = new Problems();
  const limit = checkLimit(problems, '/query/limit', input.limit);
  const cursor = checkCursor(problems, '/query/cursor', 'webhookEndpoint', input.cursor);
  problems.throwIfAny();
  const { rows } = await tenantTx(ctx.db, ctx, (tx) =>
    tx.query<EndpointRow>(
      `select ${ENDPOINT_COLUMNS} from webhook_endpoints
       where tenant_id = $1 and ($2::text is null or id > $2)
       order by id limit $3`,
      [ctx.tenantId, cursor ?? null, limit + 1],
    ),
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    data: page.map(endpointView),
    nextCursor: rows.length > limit && last !== undefined ? last.id : null,
  };
}
