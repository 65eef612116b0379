import type { ServiceContext } from '../../../core/context.ts';
import { tenantTx } from '../../../core/db/tenant-tx.ts';
import { validated } from '../../../core/modules/validate.ts';
import { findEndpoint } from '../find-rows.ts';
import { cursorProblems, isEventType, rejectProblems } from '../input-rules.ts';
import { ListDeliveriesInput, type Page, type WebhookDelivery } from '../schema.ts';
import { DELIVERY_COLUMNS, type DeliveryRow, deliveryView, pageFrom } from '../views.ts';

/** Newest first; one endpoint's deliveries (it must exist) or, without endpointId, all of the tenant's. */
export async function listDeliveries(
  ctx: ServiceContext,
  input: ListDeliveriesInput = {},
): Promise<Page<WebhookDelivery>> {
  const query = validated<ListDeliveriesInput>(ListDeliveriesInput, input, 'query');
  rejectProblems([
    ...cursorProblems('webhookDelivery', query.cursor, '/query/cursor'),
    ...(query.eventType === undefined || isEventType(query.eventType)
      ? []
      : [{ field: '/query/eventType', message: 'must be an event type like room.created', code: 'pattern' }]),
  ]);
  const limit = query.limit ?? 50;
  const rows = await tenantTx(ctx.db, ctx, async (tx) => {
    if (query.endpointId !== undefined) await findEndpoint(tx, ctx.tenantId, query.endpointId);
    const result = await tx.query<DeliveryRow>(
      `select ${DELIVERY_COLUMNS} from webhook_deliveries
        where tenant_id = $1
          and ($2::text is null or endpoint_id = $2)
          and ($3::text is null or state = $3)
          and ($4::text is null or event_type = $4)
          and ($5::text is null or id < $5)
        order by id desc limit $6`,
      [
        ctx.tenantId,
        query.endpointId ?? null,
        query.state ?? null,
        query.eventType ?? null,
        query.cursor ?? null,
        limit + 1,
      ],
    );
    return result.rows;
  });
  return pageFrom(rows, limit, deliveryView);
}
